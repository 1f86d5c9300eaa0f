import { InvalidArgumentError, type Key } from '@bloomkit/core';
import { hashInto, keyList } from '@bloomkit/core/kit';
import { fuseFromTable } from '@bloomkit/fuse';
import { runScript, script } from './client.js';
import { scriptError } from './errors.js';
import type { LocalFilter } from './local.js';
import { FUSE_READ } from './lua/fuse-read.js';
import { OneString } from './one-string.js';
import { answers } from './packed.js';
import { type FuseTable, fuseSeedText } from './params.js';
import type { Store, StoreContext } from './store.js';

const READ = script(FUSE_READ);

/**
 * Keys a lookup script call takes; a batch goes as calls of at most this many, all at once. A call reads three
 * fingerprints a key (one BITFIELD_RO for the call) and mixes each key's hash in Lua's 16-bit pieces.
 */
export const FUSE_SCRIPT_KEYS = 1_000;

/**
 * A binary fuse filter in one string `bloomkit:{NAME}:data:GEN`: its fingerprints as docs/FORMAT.md §3.8's payload
 * (u8, or u16 little-endian), the guard after them. A fixed set: written once by import, never changed. The keys
 * are hashed here (h1, h2 of MurmurHash3: the key's 64-bit hash, 8 bytes a key, one argument a call); the mixing,
 * the three slots and the fingerprint are computed by the script (lua/fuse.lua), the rules the function library
 * shares, so both doors answer as the local filter.
 */
export class FuseStore implements Store {
  private readonly fuse: FuseTable;
  /** The mixing seed as the script takes it (the meta hash's text). */
  private readonly seedText: string;
  private readonly hash = new Int32Array(4);
  private readonly string: OneString;

  constructor(private readonly context: StoreContext) {
    this.fuse = context.params.fuse!;
    this.seedText = fuseSeedText(this.fuse.seed);
    this.string = new OneString(context, context.params.bits / 8);
  }

  dataKeys(): Promise<string[]> {
    return this.string.dataKeys();
  }

  allocate(): Promise<void> {
    return this.string.allocate();
  }

  /** Refused, nothing written: the set is fixed. */
  async addMany(_keys: readonly Key[]): Promise<boolean[]> {
    throw new InvalidArgumentError(
      `RedisBloomFilter.add: ${this.context.name} is a fuse filter, a fixed set; build a new one with the keys (BinaryFuseFilter.build, bloomkit build) and import it under a new name`,
    );
  }

  /** Whether each key is in the set (its fingerprint is the XOR of its three slots'), in read-only calls. */
  async hasMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.hasMany';
    const list = keyList(where, input);
    const calls: Promise<boolean[]>[] = [];
    for (let at = 0; at < list.length; at += FUSE_SCRIPT_KEYS) {
      calls.push(this.read(where, list.slice(at, at + FUSE_SCRIPT_KEYS)));
    }
    return (await Promise.all(calls)).flat();
  }

  /** One call of lua/eval/fuse-read.lua on `list` (its prologue says the arguments). */
  private async read(where: string, list: readonly Key[]): Promise<boolean[]> {
    const { client, keys, generation, name, params } = this.context;
    const packed = Buffer.allocUnsafe(8 * list.length);
    for (let j = 0; j < list.length; j++) {
      hashInto(list[j]!, params.seed, this.hash, where);
      packed.writeInt32LE(this.hash[0]!, 8 * j);
      packed.writeInt32LE(this.hash[1]!, 8 * j + 4);
    }
    const args = [generation, this.fuse.fingerprintBits, params.capacity!, this.seedText, packed];
    const reply = await runScript(client, READ, [keys.meta, keys.data], args).catch((error: unknown) => {
      throw scriptError(where, name, error);
    });
    return answers(reply, list.length, where);
  }

  async toLocal(count: number): Promise<LocalFilter> {
    const { params } = this.context;
    const bytes = await this.string.read();
    const origin = {
      fingerprintBits: this.fuse.fingerprintBits,
      size: params.capacity!,
      keys: count,
      seed: this.fuse.seed,
      hashSeed: params.seed,
    };
    return fuseFromTable(origin, bytes) as unknown as LocalFilter;
  }

  write(filter: LocalFilter): Promise<void> {
    return this.string.write(filter);
  }
}
