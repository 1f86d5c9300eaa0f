import { BLOCK_BITS, type Key } from '@bloomkit/core';
import { BitArray, batchHashes, hashBatch, keyList } from '@bloomkit/core/kit';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { BitfieldBatch, GET_BIT, SET_BIT } from './bitfield.js';
import { allocateBytes, readBytes, writeBytes } from './bytes.js';
import { runScript, type Script, script } from './client.js';
import { COUNTED_ADD_KEYS, countedAdd } from './counted-add.js';
import { filterGone, isGoneReply, RedisFilterError, scriptError } from './errors.js';
import { readExceptionSets, writeExceptionSets } from './exception-sets.js';
import { GUARD_BYTES, guardBytes, guardRead } from './guard.js';
import { type RedisKind, redisKind, singleClass } from './kinds.js';
import type { LocalFilter, SingleLocalFilter } from './local.js';
import { FIRST_READS, ONE_PHASE_SHARE } from './lookup-phases.js';
import { BITS_ADD } from './lua/bits-add.js';
import { EXCEPTIONS_ADD } from './lua/exceptions-add.js';
import { EXCEPTIONS_HAS } from './lua/exceptions-has.js';
import { EXCEPTIONS_RECORD } from './lua/exceptions-record.js';
import { EXCEPTIONS_REMOVE } from './lua/exceptions-remove.js';
import { PackedKeys, PackedOffsets } from './packed.js';
import { everyIndex, PagesReader } from './pages-reader.js';
import { KeyPositions, redisBitOffset } from './positions.js';
import { settleAll } from './settle.js';
import { CHUNK_KEYS, commandsOf, type Located, type SentCommand } from './shard-commands.js';
import { shardTrailer } from './shard-shape.js';
import type { Counter, Store, StoreContext } from './store.js';

const EXCEPTED_ADD = script(EXCEPTIONS_ADD);
const EXCEPTED_HAS = script(EXCEPTIONS_HAS);
const RECORD = script(EXCEPTIONS_RECORD);
const REMOVE = script(EXCEPTIONS_REMOVE);
const BITS = script(BITS_ADD);

/** An exceptions script's reply for one key: '1' (added and changed, present, listed, removed), '2', '0'. */
const CHANGED = '1';
const NONE = '0';

/**
 * Bits in Redis strings: the standard and partitioned kinds in one string `bloomkit:{NAME}:data` (up to 2^32 bits,
 * Redis's 512 MB string limit), the blocked kind in shards `bloomkit:{NAME/i}:shard` of whole 512-bit blocks (both
 * suffixed with the generation, see keys.ts). Each string holds exactly the bloomkit payload bytes
 * (docs/FORMAT.md) of its range, then the 4-byte guard (guard.ts) and, for a shard, its shape (shard-shape.ts: what
 * a Redis function called on that shard alone needs), so GETRANGE of the shards' payloads in order is the file's
 * payload.
 *
 * A filter with exceptions (ExceptionFilter, kind 6) keeps the exception keys as sets beside the bits, one per
 * string and in its slot (keys.ts), so that `add` (bits set, exception lifted) and `addException` (bits checked,
 * key listed) are each one script per string, atomic against each other; `has` reads the bits as without
 * exceptions and asks the set, in one script per string, only about the keys whose bits were all set.
 */
export class BitStore implements Store {
  private readonly positions: KeyPositions;
  /** The kind, from the table (its layout, and whether it shards). */
  private readonly kind: RedisKind;
  /** Bits per shard (blocked); Infinity for one string. */
  private readonly shardBits: number;
  /** The share of keys the last lookup of more than one command answered present ({@link ONE_PHASE_SHARE}). */
  private presentShare = 0;

  /**
   * `sharded`: the blocked layout's bits cut into shards of whole blocks, one string each (the shards family), else
   * one string (the bits family).
   */
  constructor(
    private readonly context: StoreContext,
    private readonly counter: Counter,
    private readonly sharded: boolean,
  ) {
    const { params } = context;
    this.kind = redisKind(params.kind)!;
    this.positions = new KeyPositions(this.kind.Class.kind.layout, params.bits, params.hashes, params.seed);
    this.shardBits = this.sharded ? params.shardBlocks * BLOCK_BITS : Number.POSITIVE_INFINITY;
  }

  /** The shard a key's positions fall in (a key's k positions share one block, so one shard); 0 unsharded. */
  private shardOf(positions: ArrayLike<number>): number {
    return this.sharded ? Math.floor(positions[0]! / this.shardBits) : 0;
  }

  /** Bytes of each string, in payload order. */
  private sizes(): number[] {
    const { bits, shards } = this.context.params;
    if (!this.sharded) return [Math.ceil(bits / 8)];
    return Array.from({ length: shards }, (_, i) => Math.min(this.shardBits, bits - i * this.shardBits) / 8);
  }

  private key(shard: number): string {
    return this.sharded ? this.context.keys.shard(shard) : this.context.keys.data;
  }

  async dataKeys(): Promise<string[]> {
    return this.sizes().map((_, i) => this.key(i));
  }

  /** What follows string i's payload: the guard, and for a blocked shard its shape (shard-shape.ts). */
  private trailer(i: number): Buffer {
    const { params, generation } = this.context;
    return this.sharded ? shardTrailer(params, generation, i) : guardBytes(generation);
  }

  async allocate(): Promise<void> {
    const sizes = this.sizes();
    await settleAll(
      'RedisBloomFilter.create',
      sizes.map((_, i) => this.key(i)),
      sizes.map((size, i) => allocateBytes(this.context.client, this.key(i), size, this.trailer(i))),
    );
  }

  async addMany(keys: readonly Key[]): Promise<boolean[]> {
    if (!this.context.params.exceptions) return this.addRun('RedisBloomFilter.addMany', keys);
    const where = 'RedisBloomFilter.addMany';
    const codes = await this.exceptionsRun(where, keys, EXCEPTED_ADD);
    await this.counter.add(where, codes.filter((code) => code === CHANGED).length);
    return codes.map((code) => code !== NONE);
  }

  /**
   * Membership: the bits in BITFIELD_RO commands ({@link hasRun}); with exceptions, then the keys whose bits were
   * all set in one script per string that checks the guard and asks the set (lua/eval/exceptions-has.lua), so a
   * lookup costs Lua only for its present keys. Bits are only set while the guard holds, so a key's answer is the
   * one a single read of its bits and the set at that script would give (as {@link hasRun}'s two phases).
   */
  async hasMany(input: readonly Key[]): Promise<boolean[]> {
    const where = 'RedisBloomFilter.hasMany';
    const list = keyList(where, input);
    const located = this.locate(where, list);
    const out = await this.hasRun(where, list.length, located);
    if (!this.context.params.exceptions) return out;
    const present: number[] = [];
    for (let i = 0; i < out.length; i++) if (out[i]) present.push(i);
    if (present.length === 0) return out;
    const codes = await this.exceptionsCall(where, list, located, present, EXCEPTED_HAS, 0);
    for (const i of present) out[i] = codes[i] === CHANGED;
    return out;
  }

  /** Lists keys as exceptions where all their bits are set; true for each key listed now. */
  async addExceptions(keys: readonly Key[]): Promise<boolean[]> {
    const codes = await this.exceptionsRun('RedisBloomFilter.addExceptions', keys, RECORD);
    return codes.map((code) => code === CHANGED);
  }

  /** Takes keys off the exception list; true for each key that was on it. */
  async removeExceptions(keys: readonly Key[]): Promise<boolean[]> {
    const codes = await this.exceptionsRun('RedisBloomFilter.removeExceptions', keys, REMOVE);
    return codes.map((code) => code === CHANGED);
  }

  /** The sets of exception keys, one per string (empty for a filter without exceptions). */
  exceptionSets(): string[] {
    if (!this.context.params.exceptions) return [];
    return this.sizes().map((_, i) => this.context.keys.exceptions(this.sharded ? i : undefined));
  }

  /** The number of exception keys (SCARD of each set). */
  async exceptionCount(): Promise<number> {
    const counts = await Promise.all(this.exceptionSets().map((set) => this.context.client.scard(set)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Runs an exceptions script over a batch (every key with its k offsets): one reply character per key, in order. */
  private exceptionsRun(where: string, input: readonly Key[], code: Script): Promise<string[]> {
    const list = keyList(where, input);
    const located = this.locate(where, list);
    return this.exceptionsCall(
      where,
      list,
      located,
      everyIndex(list.length),
      code,
      this.context.params.hashes,
    );
  }

  /**
   * Runs an exceptions script over the keys of `indexes`: per string, their bytes and their first `reads` offsets
   * (k, or 0 for a script that reads no bits), one script call per {@link CHUNK_KEYS} keys. Returns an array of
   * the list's length holding each of those keys' reply character at its index.
   */
  private async exceptionsCall(
    where: string,
    list: readonly Key[],
    located: Located,
    indexes: readonly number[],
    code: Script,
    reads: number,
  ): Promise<string[]> {
    const { client, generation, name, keys } = this.context;
    const sizes = this.sizes();
    const sent = commandsOf(
      located,
      (shard) => this.key(shard),
      indexes,
      0,
      reads,
      () => ({ offsets: new PackedOffsets(), keys: new PackedKeys() }),
      (command, offset) => command.offsets.push(offset),
      (command, shard) =>
        runScript(
          client,
          code,
          [this.key(shard), keys.exceptions(this.sharded ? shard : undefined)],
          [generation, sizes[shard]! * 8, reads, command.offsets.buffer(), command.keys.buffer()],
        ).catch((error: unknown) => {
          throw scriptError(where, name, error);
        }),
      (command, i) => command.keys.push(list[i]!),
    );
    return this.inOrder(where, list.length, sent, (reply, count) => {
      if (typeof reply !== 'string' || reply.length !== count) {
        throw new RedisFilterError(
          `${where}: unexpected reply from Redis: ${JSON.stringify(reply)?.slice(0, 80)}`,
        );
      }
      return [...reply];
    });
  }

  /**
   * Test-and-add: per string, a BITS_ADD script (lua/eval/bits-add.lua: the guard checked, then BITFIELD SET u1 of
   * each key's k bits; a key is new when one of its old bits was 0) of at most {@link CHUNK_KEYS} keys, its offsets
   * packed in one argument. Each command is sent as soon as it is full, so encoding the next one overlaps with Redis
   * executing this one; each key's bits are in one command, so each test-and-add is atomic; each command is applied
   * once under replay (it carries an id: client.ts, onceArguments). Then the count, whose script rejects the add when
   * the meta hash is gone (once too). A few keys into one string are one script instead (counted-add.ts): bits,
   * checks and count in one round trip.
   */
  private async addRun(where: string, input: readonly Key[]): Promise<boolean[]> {
    const list = keyList(where, input);
    if (!this.sharded && list.length <= COUNTED_ADD_KEYS) {
      const batch = new BitfieldBatch(this.context.keys.data, false);
      for (const offset of this.locate(where, list).offsets) batch.push(SET_BIT, offset);
      return countedAdd(where, this.context, batch, list.length, this.sizes()[0]!, 0);
    }
    const { client, generation, name } = this.context;
    const k = this.context.params.hashes;
    const sizes = this.sizes();
    const out = new Array<boolean>(list.length);
    const sent = commandsOf(
      this.locate(where, list),
      (shard) => this.key(shard),
      everyIndex(list.length),
      0,
      k,
      () => new PackedOffsets(),
      (offsets, offset) => offsets.push(offset),
      (offsets, shard) =>
        runScript(
          client,
          BITS,
          [this.key(shard)],
          [generation, sizes[shard]! * 8, k, offsets.buffer()],
        ).catch((error: unknown) => {
          throw scriptError(where, name, error);
        }),
    );
    let added = 0;
    const answer = (g: number, reply: unknown) => {
      const { indexes } = sent[g]!;
      if (typeof reply !== 'string' || reply.length !== indexes.length) {
        throw new RedisFilterError(
          `${where}: unexpected reply from Redis: ${JSON.stringify(reply)?.slice(0, 80)}`,
        );
      }
      for (let j = 0; j < indexes.length; j++) {
        const fresh = reply.charCodeAt(j) === 49; // '1'
        out[indexes[j]!] = fresh;
        if (fresh) added++;
      }
    };
    const replies = await settleAll(
      where,
      sent.map((c) => c.key),
      sent.map((c) => c.reply),
      (partial) => {
        for (const [g, reply] of partial.entries()) if (reply !== undefined) answer(g, reply);
        this.counter.add(where, added).catch(() => undefined);
      },
    );
    for (const [g, reply] of replies.entries()) answer(g, reply);
    await this.counter.add(where, added);
    return out;
  }

  /**
   * Membership in two phases of BITFIELD_RO commands (per shard, chunked like {@link addRun}, each reading the
   * string's guard first and creating nothing): the first reads {@link FIRST_READS} bits of every key, the second
   * the other bits of only the keys whose first bits were all set. Most absent keys end in the first phase; a
   * present key costs its k reads either way. A batch of one command, or one after a lookup that found most of its
   * keys present ({@link ONE_PHASE_SHARE}), reads all k in one phase. BITFIELD does each read in C, where a Lua
   * script's GETBIT is a whole command call: measured on one node, the script answered 70–110 k present keys/s and
   * BITFIELD 160–230 k.
   *
   * A key's bits may be read in two commands. Bits are only ever set while the filter exists (a clear or drop
   * changes the generation, which the guard catches), so the answer is the one a single read at the second
   * command would give.
   */
  private async hasRun(where: string, length: number, located: Located): Promise<boolean[]> {
    const k = this.context.params.hashes;
    const out = new Array<boolean>(length).fill(false);
    const onePhase = length <= CHUNK_KEYS || this.presentShare >= ONE_PHASE_SHARE;
    const first = onePhase ? k : Math.min(FIRST_READS, k);
    let present = await this.readPhase(where, located, everyIndex(length), 0, first, out);
    if (first < k && present.length > 0)
      present = await this.readPhase(where, located, present, first, k, out);
    if (length > CHUNK_KEYS) this.presentShare = present.length / length;
    return out;
  }

  /**
   * Reads bits `from` to `to` (exclusive) of each key of `indexes`; sets `out[i]` to whether they were all set and
   * returns the indexes, in order, of the keys for which they were.
   */
  private async readPhase(
    where: string,
    located: Located,
    indexes: readonly number[],
    from: number,
    to: number,
    out: boolean[],
  ): Promise<number[]> {
    const { client, generation, name } = this.context;
    const sizes = this.sizes();
    const sent = commandsOf(
      located,
      (shard) => this.key(shard),
      indexes,
      from,
      to,
      (shard) => new BitfieldBatch(this.key(shard), true, guardRead(sizes[shard]!)),
      (batch, offset) => batch.push(GET_BIT, offset),
      (batch) => batch.send(client),
    );
    const replies = await settleAll(
      where,
      sent.map((c) => c.key),
      sent.map((c) => c.reply),
    );
    const reads = to - from;
    const possible: number[] = [];
    for (const [g, reply] of replies.entries()) {
      if (reply[0] !== generation) throw filterGone(where, name);
      const group = sent[g]!.indexes;
      for (let j = 0; j < group.length; j++) {
        let all = true;
        for (let r = 1; r <= reads; r++) if (reply[j * reads + r] === 0) all = false;
        out[group[j]!] = all;
      }
    }
    for (const i of indexes) if (out[i]) possible.push(i);
    return possible;
  }

  /**
   * Waits for every command of a batch (settleAll: a failure names the strings it touched) and puts each command's
   * answers, read from its reply by `read`, back in the batch's order.
   */
  private async inOrder<R, T>(
    where: string,
    length: number,
    sent: readonly SentCommand<R>[],
    read: (reply: R, count: number) => T[],
  ): Promise<T[]> {
    const out = new Array<T>(length);
    const replies = await settleAll(
      where,
      sent.map((c) => c.key),
      sent.map((c) => c.reply),
    );
    replies.forEach((reply, g) => {
      const { indexes } = sent[g]!;
      const got = read(reply, indexes.length);
      for (let j = 0; j < indexes.length; j++) out[indexes[j]!] = got[j]!;
    });
    return out;
  }

  /** Hashes each key once (a batch at a time, core's hashBatch): its Redis bit offsets and its string. */
  private locate(where: string, list: readonly Key[]): Located {
    const { hashes: k, seed } = this.context.params;
    const offsets = new Float64Array(list.length * k);
    const shards = new Uint32Array(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, seed, where);
      const words = batchHashes();
      for (let j = 0; j < count; j++) {
        const i = start + j;
        const positions = this.positions.ofWords(words, 4 * j);
        const shard = this.shardOf(positions);
        const base = this.sharded ? shard * this.shardBits : 0;
        shards[i] = shard;
        for (let h = 0; h < k; h++) offsets[i * k + h] = redisBitOffset(positions[h]! - base);
      }
      start += count;
    }
    return { offsets, shards, k };
  }

  /** The payload, read a few MB at a time; every string's guard is checked after its payload was read. */
  async toLocal(count: number): Promise<LocalFilter> {
    const { client, params, generation, name } = this.context;
    const sizes = this.sizes();
    const expected = guardBytes(generation);
    const parts = await Promise.all(
      sizes.map(async (size, i) => {
        const bytes = await readBytes(client, this.key(i), size);
        const guard = await client.getrangeBuffer(this.key(i), size, size + GUARD_BYTES - 1);
        if (!expected.equals(guard)) throw filterGone('RedisBloomFilter.export', name);
        return bytes;
      }),
    );
    const storage = new BitArray(params.bits, { bytes: parts.length === 1 ? parts[0]! : parts, copy: false });
    const { bits, hashes, seed } = params;
    const shape = { bits, hashes, seed, maxBytes: Number.MAX_SAFE_INTEGER };
    const state = { storage, count, capacity: params.capacity ?? undefined, fpr: params.fpr ?? undefined };
    const Class = singleClass(this.kind);
    const local = new Class(shape, state) as LocalFilter;
    if (!params.exceptions) return local;
    // Adds racing the export may have lifted exceptions already read; the export is not a snapshot across keys.
    return (await readExceptionSets(client, this.exceptionSets(), local)) as unknown as LocalFilter;
  }

  async write(given: LocalFilter): Promise<void> {
    const excepted = given instanceof ExceptionFilter ? (given as ExceptionFilter) : undefined;
    const filter = (excepted?.filter ?? given) as LocalFilter;
    const pages = (filter as SingleLocalFilter).payloadParts();
    const payload = new PagesReader(pages);
    const sizes = this.sizes();
    for (const [i, size] of sizes.entries())
      await writeBytes(this.context.client, this.key(i), payload.take(size), this.trailer(i));
    if (excepted === undefined) return;
    const { client, keys } = this.context;
    const setOf = (key: Key) =>
      keys.exceptions(this.sharded ? this.shardOf(this.positions.of(key)) : undefined);
    await writeExceptionSets(client, excepted, setOf);
  }
}
