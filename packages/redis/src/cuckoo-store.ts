import type { Key } from '@bloomkit/core';
import { hashInto, keyList } from '@bloomkit/core/kit';
import { CapacityError, cuckooFromTable, MAX_KICKS } from '@bloomkit/cuckoo';
import { runScript, type Script, script } from './client.js';
import { RedisFilterError, scriptError } from './errors.js';
import type { LocalFilter } from './local.js';
import { CUCKOO_ADD } from './lua/cuckoo-add.js';
import { CUCKOO_DELETE } from './lua/cuckoo-delete.js';
import { CUCKOO_READ } from './lua/cuckoo-read.js';
import { OneString } from './one-string.js';
import { answers } from './packed.js';
import type { CuckooTable } from './params.js';
import type { Store, StoreContext } from './store.js';

const ADD = script(CUCKOO_ADD);
const DELETE = script(CUCKOO_DELETE);
const READ = script(CUCKOO_READ);

/**
 * Keys a script call takes: a batch goes as calls of at most this many, lookups all at once, adds and deletes one
 * after the other, in order. A call holds Redis about 11 ms (lookups) to 17 ms (adds) a thousand keys (measured,
 * Redis 7.0.15 on the development machine).
 */
export const SCRIPT_KEYS = 1_000;

/**
 * The kicks one add call may make in all: {@link CALL_WALKS} whole walks, and {@link KEY_KICKS} more for each key
 * (a kick is about 5 µs of the server: a bucket read and a slot written), so a call of 1,000 keys holds Redis at
 * most about 80 ms. A table near full could otherwise hold the server for a walk of 1,000 kicks per key; a call
 * whose walks need more fails whole (CapacityError, nothing of it written). Up to the capacity a walk averages a
 * few kicks (distinct keys: 0.5 at 76% of the slots, 4 at 90%). A walk is priced at most `MAX_KICKS` (1,000, what
 * `create` writes) whatever a file's max kicks say: the format allows 65,535, and a call priced at four such walks
 * held Redis 0.65–1.45 s; a longer walk fails the call whole instead, as past the capacity.
 */
export const CALL_WALKS = 4;
/** See {@link CALL_WALKS}. */
export const KEY_KICKS = 8;

/** The refusal of an add script that found no room: `BLOOMKIT_FULL message`. */
const FULL_REPLY = 'BLOOMKIT_FULL ';

/**
 * A cuckoo filter in one string `bloomkit:{NAME}:data:GEN`: the table of CuckooFilter (`@bloomkit/cuckoo`, docs/
 * FORMAT.md §3.9), slot j being BITFIELD's `u<f>` at bit j · f, the guard after it. The keys are hashed here (h1,
 * h2, h3 of MurmurHash3, 12 bytes a key, one argument a batch); the fingerprints, buckets and walks are computed
 * by the scripts (lua/cuckoo.lua), the one copy of those rules that the function library shares, so every writer
 * leaves the bytes a local filter given the same keys in the same order holds.
 */
export class CuckooStore implements Store {
  private readonly table: CuckooTable;
  private readonly hash = new Int32Array(4);
  /** The string the table is kept in, the guard after it. */
  private readonly string: OneString;

  /** The scripts keep the meta hash's `count` in the step that changes the table: no Counter is needed. */
  constructor(private readonly context: StoreContext) {
    this.table = context.params.table!;
    this.string = new OneString(context, Math.ceil(context.params.bits / 8));
  }

  dataKeys(): Promise<string[]> {
    return this.string.dataKeys();
  }

  allocate(): Promise<void> {
    return this.string.allocate();
  }

  /**
   * One copy of each key, in order (lua/eval/cuckoo-add.lua): true for a key absent before. Each call of
   * {@link SCRIPT_KEYS} keys is whole or nothing: a key with no room (or walks past the call's kicks, see
   * {@link CALL_WALKS}) rejects with a CapacityError and nothing of that call is written, the calls before it are
   * (the error says how many keys those were); `count` grows with the keys in the same step as the table.
   */
  addMany(input: readonly Key[]): Promise<boolean[]> {
    return this.add('RedisBloomFilter.addMany', input, false);
  }

  /** {@link addMany} of the keys that are absent only: a key present gets no second copy (CF.ADDNX). */
  addNew(input: readonly Key[]): Promise<boolean[]> {
    return this.add('RedisBloomFilter.addNew', input, true);
  }

  private async add(where: string, input: readonly Key[], absentOnly: boolean): Promise<boolean[]> {
    const list = keyList(where, input);
    const out: boolean[] = [];
    for (let at = 0; at < list.length; at += SCRIPT_KEYS) {
      const slice = list.slice(at, at + SCRIPT_KEYS);
      const allowance = CALL_WALKS * Math.min(this.table.maxKicks, MAX_KICKS) + KEY_KICKS * slice.length;
      const more = [allowance, this.context.name, absentOnly ? '1' : '0'];
      const reply = await this.run(where, ADD, slice, more).catch((error: unknown) => {
        if (!(error instanceof CapacityError) || at === 0) throw error;
        throw new CapacityError(
          `${error.message} (the first ${at} keys of the batch were added by the calls before)`,
        );
      });
      out.push(...answers(reply, slice.length, where));
    }
    return out;
  }

  /** Whether each key's fingerprint is in one of its buckets, in read-only script calls all at once. */
  async hasMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.hasMany';
    const slices = this.slices(keyList(where, input));
    const replies = await Promise.all(slices.map((slice) => this.run(where, READ, slice, [0, 'has'])));
    return replies.flatMap((reply, j) => answers(reply, slices[j]!.length, where));
  }

  /** Removes one copy of each key, in order: true when one was found (CuckooFilter.deleteAll). */
  async deleteMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.deleteMany';
    const out: boolean[] = [];
    for (const slice of this.slices(keyList(where, input))) {
      out.push(...answers(await this.run(where, DELETE, slice, [0]), slice.length, where));
    }
    return out;
  }

  /** The copies of each key's fingerprint in its two buckets (CuckooFilter.countOf, RedisBloom's CF.COUNT). */
  async countMany(input: readonly Key[]): Promise<number[]> {
    const where = 'RedisBloomFilter.countMany';
    const slices = this.slices(keyList(where, input));
    const replies = await Promise.all(slices.map((slice) => this.run(where, READ, slice, [0, 'count'])));
    return replies.flatMap((reply, j) => {
      const n = slices[j]!.length;
      if (!Array.isArray(reply) || reply.length !== n || !reply.every(Number.isInteger)) {
        throw new RedisFilterError(
          `${where}: unexpected reply from Redis: ${JSON.stringify(reply)?.slice(0, 80)}`,
        );
      }
      return reply as number[];
    });
  }

  /** The batch in calls of at most {@link SCRIPT_KEYS} keys. */
  private slices(list: readonly Key[]): Key[][] {
    const out: Key[][] = [];
    for (let at = 0; at < list.length; at += SCRIPT_KEYS) out.push(list.slice(at, at + SCRIPT_KEYS));
    return out;
  }

  /** Runs a cuckoo script on the keys (lua/eval/cuckoo-prologue.lua says the arguments). */
  private async run(
    where: string,
    which: Script,
    list: readonly Key[],
    more: readonly (string | number)[],
  ): Promise<unknown> {
    const { client, keys, generation, name, params } = this.context;
    const { fingerprintBits, bucketSize, buckets, maxKicks } = this.table;
    const packed = Buffer.allocUnsafe(12 * list.length);
    for (let j = 0; j < list.length; j++) {
      hashInto(list[j]!, params.seed, this.hash, where);
      packed.writeInt32LE(this.hash[0]!, 12 * j);
      packed.writeInt32LE(this.hash[1]!, 12 * j + 4);
      packed.writeInt32LE(this.hash[2]!, 12 * j + 8);
    }
    const args = [
      generation,
      fingerprintBits,
      bucketSize,
      buckets,
      maxKicks,
      more[0]!,
      packed,
      ...more.slice(1),
    ];
    return runScript(client, which, [keys.meta, keys.data], args).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith(FULL_REPLY)) {
        throw new CapacityError(`${where}: ${error.message.slice(FULL_REPLY.length)}`);
      }
      throw scriptError(where, name, error);
    });
  }

  async toLocal(): Promise<LocalFilter> {
    const { params } = this.context;
    const bytes = await this.string.read();
    const made = { ...this.table, capacity: params.capacity!, fpr: params.fpr!, seed: params.seed };
    return cuckooFromTable(made, bytes) as unknown as LocalFilter;
  }

  write(filter: LocalFilter): Promise<void> {
    return this.string.write(filter);
  }
}
