import { type Key, standardLayout } from '@bloomkit/core';
import { CounterArray, type CounterBits, keyList } from '@bloomkit/core/kit';
import { BitfieldBatch, BitfieldOp } from './bitfield.js';
import { runScript, script } from './client.js';
import { countedAdd } from './counted-add.js';
import { filterGone, isGoneReply, scriptError } from './errors.js';
import { guardRead } from './guard.js';
import { redisKind, singleClass } from './kinds.js';
import type { LocalFilter } from './local.js';
import { COUNTERS_DELETE } from './lua/counters-delete.js';
import { OneString } from './one-string.js';
import { answers, PackedOffsets } from './packed.js';
import { KeyPositions, redisCounterOffset } from './positions.js';
import type { Counter, Store, StoreContext } from './store.js';

const DELETE = script(COUNTERS_DELETE);

/** The most keys one counted add call takes (k counters each, four BITFIELD arguments a counter). */
const COUNTED_CALL_KEYS = 1000;

/**
 * A counting filter in one string `bloomkit:{NAME}:data`: 4- or 8-bit counters packed exactly as the bloomkit
 * payload, read and changed with BITFIELD's u4/u8 fields (saturating increments, checked decrements in Lua).
 * 16-bit counters are little-endian in the format and big-endian in BITFIELD, so they are not offered in Redis.
 */
export class CounterStore implements Store {
  private readonly positions: KeyPositions;
  /** The string the counters are kept in, the guard after them. */
  private readonly string: OneString;
  private readonly type: string;
  private readonly increment: BitfieldOp;
  private readonly read: BitfieldOp;

  constructor(
    private readonly context: StoreContext,
    readonly _counter: Counter,
  ) {
    const { params } = context;
    this.string = new OneString(context, Math.ceil((params.bits * params.counterBits) / 8));
    this.positions = new KeyPositions(standardLayout, params.bits, params.hashes, params.seed);
    this.type = `u${params.counterBits}`;
    this.increment = new BitfieldOp(`INCRBY ${this.type}`, '1');
    this.read = new BitfieldOp(`GET ${this.type}`, '');
  }

  private bytes(): number {
    return this.string.bytes;
  }

  dataKeys(): Promise<string[]> {
    return this.string.dataKeys();
  }

  allocate(): Promise<void> {
    return this.string.allocate();
  }

  /**
   * Saturating increments of every counter of the batch; a key is new when one of its counters went 0 → 1. Calls
   * of at most {@link COUNTED_CALL_KEYS} keys, each one COUNTED_ADD script (lua/eval/counted-add.lua): the meta
   * hash's generation and the string checked, the counters raised and `count` with them, in one atomic step, applied
   * once under replay (a counter raised twice by a resent call would keep a deleted key present: client.ts,
   * onceArguments). The calls go out at once; the add resolves once every one is applied.
   */
  async addMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.addMany';
    const list = keyList(where, input);
    const calls: Promise<boolean[]>[] = [];
    for (let at = 0; at < list.length || at === 0; at += COUNTED_CALL_KEYS) {
      const part = list.slice(at, at + COUNTED_CALL_KEYS);
      const batch = new BitfieldBatch(this.context.keys.data, false);
      this.encode(part, (offset) => batch.push(this.increment, offset));
      calls.push(countedAdd(where, this.context, batch, part.length, this.bytes(), 1));
    }
    return (await Promise.all(calls)).flat();
  }

  /** The guard and every counter of the batch in one BITFIELD_RO; a key is present when all k are non-zero. */
  async hasMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.hasMany';
    const list = keyList(where, input);
    const { client, keys, generation, name } = this.context;
    const batch = new BitfieldBatch(keys.data, true, guardRead(this.bytes()));
    this.encode(list, (offset) => batch.push(this.read, offset));
    const values = await batch.send(client);
    if (values[0] !== generation) throw filterGone(where, name);
    return this.perKey(list.length, values, (value) => value === 0).map((zero) => !zero);
  }

  /** Checked decrements, as CountingBloomFilter.delete, in one Lua script (BITFIELD cannot check first). */
  async deleteMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.deleteMany';
    const list = keyList(where, input);
    const { client, keys, params } = this.context;
    const packed = new PackedOffsets();
    this.encode(list, (offset) => packed.push(offset));
    const reply = await runScript(
      client,
      DELETE,
      [keys.data, keys.meta],
      [
        this.context.generation,
        this.bytes() * 8,
        params.hashes,
        this.type,
        2 ** params.counterBits - 1,
        packed.buffer(),
      ],
    ).catch((error: unknown) => {
      throw scriptError(where, this.context.name, error);
    });
    return answers(reply, list.length, where);
  }

  /** Calls `each` with the Redis offset of every counter of every key, in order. */
  private encode(list: readonly Key[], each: (offset: number) => void): void {
    const { hashes, counterBits } = this.context.params;
    for (const key of list) {
      const positions = this.positions.of(key);
      for (let h = 0; h < hashes; h++) each(redisCounterOffset(positions[h]!, counterBits));
    }
  }

  /** For each key, whether `test` holds for one of its k values (after the guard's, at index 0). */
  private perKey(n: number, values: readonly number[], test: (value: number) => boolean): boolean[] {
    const k = this.context.params.hashes;
    const out = new Array<boolean>(n);
    for (let j = 0; j < n; j++) {
      let any = false;
      for (let h = 1; h <= k; h++) if (test(values[j * k + h]!)) any = true;
      out[j] = any;
    }
    return out;
  }

  async toLocal(count: number): Promise<LocalFilter> {
    const { params } = this.context;
    const bytes = await this.string.read();
    const storage = new CounterArray(params.bits, params.counterBits as CounterBits, { bytes, copy: false });
    const Class = singleClass(redisKind(params.kind)!);
    return new Class(
      {
        bits: params.bits,
        hashes: params.hashes,
        seed: params.seed,
        counterBits: params.counterBits as 4 | 8,
        maxBytes: Number.MAX_SAFE_INTEGER,
      },
      { storage, count, capacity: params.capacity ?? undefined, fpr: params.fpr ?? undefined },
    ) as LocalFilter;
  }

  write(filter: LocalFilter): Promise<void> {
    return this.string.write(filter);
  }
}
