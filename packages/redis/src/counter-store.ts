import { type Key, standardLayout } from '@bloomkit/core';
import { CounterArray, type CounterBits, keyList } from '@bloomkit/core/kit';
import { BitfieldBatch, BitfieldOp } from './bitfield.js';
import { runScript, script } from './client.js';
import { COUNTED_ADD_KEYS, countedAdd } from './counted-add.js';
import { filterGone, isGoneReply } from './errors.js';
import { checkGuard, guardRead } from './guard.js';
import { redisKind, singleClass } from './kinds.js';
import type { LocalFilter } from './local.js';
import { COUNTERS_DELETE } from './lua/counters-delete.js';
import { OneString } from './one-string.js';
import { answers, PackedOffsets } from './packed.js';
import { KeyPositions, redisCounterOffset } from './positions.js';
import type { Counter, Store, StoreContext } from './store.js';

const DELETE = script(COUNTERS_DELETE);

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
    private readonly counter: Counter,
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
   * Saturating increments of every counter of the batch; a key is new when one of its counters went 0 → 1. A few
   * keys ({@link COUNTED_ADD_KEYS}) are one COUNTED_ADD script (lua/eval/counted-add.lua): the meta hash's generation and the string
   * checked, the counters raised and `count` with them, in one atomic step and one round trip. A larger batch is one
   * BITFIELD after a GET of the guard (guard.ts), then the count, whose script rejects when the meta hash is gone;
   * the add resolves once both are applied.
   */
  async addMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.addMany';
    const list = keyList(where, input);
    const { client, keys, generation, name } = this.context;
    if (list.length <= COUNTED_ADD_KEYS) {
      const batch = new BitfieldBatch(keys.data, false);
      this.encode(list, (offset) => batch.push(this.increment, offset));
      return countedAdd(where, this.context, batch, list.length, this.bytes(), 1);
    }
    const batch = new BitfieldBatch(keys.data, false, [...guardRead(this.bytes()), 'OVERFLOW', 'SAT']);
    this.encode(list, (offset) => batch.push(this.increment, offset));
    const now = await batch.send(client);
    await checkGuard(where, name, client, keys.data, this.bytes(), generation, now[0]!);
    const out = this.perKey(list.length, now, (value) => value === 1);
    await this.counter.add(where, out.filter(Boolean).length);
    return out;
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
      throw isGoneReply(error) ? filterGone(where, this.context.name, error) : error;
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
