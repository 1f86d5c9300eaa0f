import { BLOCK_BITS, type Key } from '@bloomkit/core';
import { BitArray, keyList } from '@bloomkit/core/internal';
import { BitfieldBatch, SET_BIT } from './bitfield.js';
import { allocateBytes, readBytes, writeBytes } from './bytes.js';
import { runScript, script } from './client.js';
import { filterGone, isGoneReply } from './errors.js';
import { checkGuard, GUARD_BYTES, guardBytes, guardRead } from './guard.js';
import { type RedisKind, redisKind, singleClass } from './kinds.js';
import type { LocalFilter, SingleLocalFilter } from './local.js';
import { answers, PackedOffsets } from './packed.js';
import { KeyPositions, redisBitOffset } from './positions.js';
import { BITS_HAS } from './scripts.js';
import { settleAll } from './settle.js';

const HAS = script(BITS_HAS);

/** Keys per command: small enough that encoding the next command overlaps with Redis running this one. */
const CHUNK_KEYS = 256;

import type { Counter, Store, StoreContext } from './store.js';

/**
 * Bits in Redis strings: the standard and partitioned kinds in one string `bloomkit:{NAME}:data` (up to 2^32 bits,
 * Redis's 512 MB string limit), the blocked kind in shards `bloomkit:{NAME/i}:shard` of whole 512-bit blocks (both
 * suffixed with the generation, see keys.ts). Each string holds exactly the bloomkit payload bytes
 * (docs/FORMAT.md) of its range, then the 4-byte guard (guard.ts), so GETRANGE of the shards' payloads in order is
 * the file's payload.
 */
export class BitStore implements Store {
  private readonly positions: KeyPositions;
  /** The kind, from the table (its layout, and whether it shards). */
  private readonly kind: RedisKind;
  /** Bits per shard (blocked); Infinity for one string. */
  private readonly shardBits: number;

  constructor(
    private readonly context: StoreContext,
    private readonly counter: Counter,
  ) {
    const { params } = context;
    this.kind = redisKind(params.kind)!;
    this.positions = new KeyPositions(this.kind.Class.kind.layout, params.bits, params.hashes, params.seed);
    this.shardBits = this.sharded ? params.shardBlocks * BLOCK_BITS : Number.POSITIVE_INFINITY;
  }

  private get sharded(): boolean {
    return this.kind.storage === 'shards';
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

  async allocate(): Promise<void> {
    const sizes = this.sizes();
    const guard = guardBytes(this.context.generation);
    await settleAll(
      'RedisBloomFilter.create',
      sizes.map((_, i) => this.key(i)),
      sizes.map((size, i) => allocateBytes(this.context.client, this.key(i), size, guard)),
    );
  }

  async addMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.addRun('RedisBloomFilter.addMany', keys);
  }

  async hasMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.hasRun('RedisBloomFilter.hasMany', keys);
  }

  /**
   * Test-and-add: per shard, BITFIELD SET u1 of each key's k bits, returning the old bits (a key is new when one
   * of them was 0), after a GET of the string's guard (a filter that is gone answers 0 there: see guard.ts). Each
   * command is sent as soon as it holds {@link CHUNK_KEYS} keys, so encoding the next one overlaps with Redis
   * executing this one; each key's bits are in one command, so each test-and-add is atomic.
   */
  private async addRun(where: string, input: readonly Key[]): Promise<boolean[]> {
    const list = keyList(where, input);
    const { client, generation, name } = this.context;
    const k = this.context.params.hashes;
    const sizes = this.sizes();
    const out = new Array<boolean>(list.length);
    const sent = this.chunked(
      list,
      (shard) => new BitfieldBatch(this.key(shard), false, guardRead(sizes[shard]!)),
      (batch, offset) => batch.push(SET_BIT, offset),
      (batch, shard) =>
        batch
          .send(client)
          .then((reply) =>
            checkGuard(where, name, client, this.key(shard), sizes[shard]!, generation, reply[0]!).then(
              () => reply,
            ),
          ),
    );
    let added = 0;
    const answer = (g: number, reply: number[]) => {
      const { indexes } = sent[g]!;
      for (let j = 0; j < indexes.length; j++) {
        let zero = false;
        for (let h = 1; h <= k; h++) if (reply[j * k + h] === 0) zero = true;
        out[indexes[j]!] = zero;
        if (zero) added++;
      }
    };
    const replies = await settleAll(
      where,
      sent.map((c) => c.key),
      sent.map((c) => c.reply),
      (partial) => {
        for (const [g, reply] of partial.entries()) if (reply !== undefined) answer(g, reply);
        this.counter.add(added);
      },
    );
    for (const [g, reply] of replies.entries()) answer(g, reply);
    this.counter.add(added);
    return out;
  }

  /**
   * Membership: per shard, a script that checks the guard, then GETBITs that stop at a key's first 0; chunked like
   * {@link addRun}.
   */
  private async hasRun(where: string, input: readonly Key[]): Promise<boolean[]> {
    const list = keyList(where, input);
    const { client, generation, name } = this.context;
    const k = this.context.params.hashes;
    const sizes = this.sizes();
    const out = new Array<boolean>(list.length);
    const sent = this.chunked(
      list,
      () => new PackedOffsets(),
      (packed, offset) => packed.push(offset),
      (packed, shard) =>
        runScript(client, HAS, [this.key(shard)], [generation, sizes[shard]! * 8, k, packed.buffer()]).catch(
          (error: unknown) => {
            throw isGoneReply(error) ? filterGone(where, name, error) : error;
          },
        ),
    );
    const replies = await settleAll(
      where,
      sent.map((c) => c.key),
      sent.map((c) => c.reply),
    );
    replies.forEach((reply, g) => {
      const { indexes } = sent[g]!;
      const got = answers(reply, indexes.length, where);
      for (let j = 0; j < indexes.length; j++) out[indexes[j]!] = got[j]!;
    });
    return out;
  }

  /**
   * Splits a batch into commands: keys grouped by shard, at most {@link CHUNK_KEYS} keys per command, each command
   * sent as soon as it is full. `start` makes a shard's command, `offset` adds one Redis bit offset to it, `send`
   * sends it.
   */
  private chunked<C, R>(
    list: readonly Key[],
    start: (shard: number) => C,
    offset: (command: C, offset: number) => void,
    send: (command: C, shard: number) => Promise<R>,
  ): { key: string; indexes: number[]; reply: Promise<R> }[] {
    const k = this.context.params.hashes;
    const open = new Map<number, { indexes: number[]; command: C }>();
    const sent: { key: string; indexes: number[]; reply: Promise<R> }[] = [];
    const flush = (shard: number, group: { indexes: number[]; command: C }) => {
      sent.push({ key: this.key(shard), indexes: group.indexes, reply: send(group.command, shard) });
      open.delete(shard);
    };
    for (let i = 0; i < list.length; i++) {
      const positions = this.positions.of(list[i]!);
      const shard = this.sharded ? Math.floor(positions[0]! / this.shardBits) : 0;
      const base = this.sharded ? shard * this.shardBits : 0;
      let group = open.get(shard);
      if (group === undefined) {
        group = { indexes: [], command: start(shard) };
        open.set(shard, group);
      }
      group.indexes.push(i);
      for (let h = 0; h < k; h++) offset(group.command, redisBitOffset(positions[h]! - base));
      if (group.indexes.length === CHUNK_KEYS) flush(shard, group);
    }
    for (const [shard, group] of [...open]) flush(shard, group);
    return sent;
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
    const shape = {
      bits: params.bits,
      hashes: params.hashes,
      seed: params.seed,
      maxBytes: Number.MAX_SAFE_INTEGER,
    };
    const state = { storage, count, capacity: params.capacity ?? undefined, fpr: params.fpr ?? undefined };
    const Class = singleClass(this.kind);
    return new Class(shape, state) as LocalFilter;
  }

  async write(filter: LocalFilter): Promise<void> {
    const pages = (filter as SingleLocalFilter).payloadParts();
    const payload = new PagesReader(pages);
    const sizes = this.sizes();
    const guard = guardBytes(this.context.generation);
    for (const [i, size] of sizes.entries())
      await writeBytes(this.context.client, this.key(i), payload.take(size), guard);
  }
}

/** Reads consecutive ranges of bytes split over pages (a payload larger than one array). */
class PagesReader {
  private page = 0;
  private at = 0;

  constructor(private readonly pages: readonly Uint8Array[]) {}

  take(length: number): Uint8Array {
    const first = this.pages[this.page]!;
    if (this.at + length <= first.length) {
      const view = first.subarray(this.at, this.at + length);
      this.at += length;
      if (this.at === first.length) {
        this.page++;
        this.at = 0;
      }
      return view;
    }
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const page = this.pages[this.page]!;
      const n = Math.min(page.length - this.at, length - done);
      out.set(page.subarray(this.at, this.at + n), done);
      done += n;
      this.at += n;
      if (this.at === page.length) {
        this.page++;
        this.at = 0;
      }
    }
    return out;
  }
}
