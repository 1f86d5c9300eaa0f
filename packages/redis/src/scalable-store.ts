import { BloomError, FormatError, type Key, murmur3x86_128Into, partitionedLayout } from '@bloomkit/core';
import { BitArray, keyList } from '@bloomkit/core/kit';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import {
  MAX_SUB_FILTERS,
  ScalableBloomFilter,
  type SubFilterShape,
  subCapacities,
  subFprs,
} from '@bloomkit/scalable';
import { allocateBytes, readBytes, writeBytes } from './bytes.js';
import { runScript, script } from './client.js';
import { FilterNotFoundError, filterGone, isGoneReply, RedisFilterError } from './errors.js';
import { metaKey } from './keys.js';
import type { LocalFilter } from './local.js';
import { SCALABLE_ADD } from './lua/scalable-add.js';
import { SCALABLE_HAS } from './lua/scalable-has.js';
import { PackedOffsets } from './packed.js';
import { checkCount, checkSubFilterCount } from './params.js';
import { KeyPositions, redisBitOffset } from './positions.js';
import type { Store, StoreContext } from './store.js';

const ADD = script(SCALABLE_ADD);
const HAS = script(SCALABLE_HAS);

/**
 * A scalable filter in one cluster slot: sub-filter i in `bloomkit:{NAME}:sub:i`, the chain's length in the meta
 * hash's `filters`, each sub-filter's count in `count:i`. The meta hash's `shapes` fixes every sub-filter's m and k
 * (chain-shapes.ts), so the client computes the positions of the sub-filters it knows of and of the next one; the script checks them newest first,
 * inserts new keys into the newest, and chains the next sub-filter when the newest is full, all in one atomic step,
 * so racing writers can neither grow the chain twice nor lose a key. All of it lives in one slot (like RedisBloom's
 * scalable filters); the blocked kind is the one that spans nodes.
 */
export class ScalableStore implements Store {
  private readonly shapes: SubFilterShape[] = [];
  private readonly positions: KeyPositions[] = [];
  /** Sub-filters as last seen in Redis. */
  private known = 1;

  constructor(private readonly context: StoreContext) {}

  private schedule() {
    const { params } = this.context;
    return {
      initialCapacity: params.capacity!,
      fpr: params.fpr!,
      growth: params.growth,
      tightening: params.tightening,
    };
  }

  /**
   * The shape and position maker of sub-filter j, or undefined past the end of the chain's `shapes` (the meta
   * hash's list, see chain-shapes.ts: m and k fixed when the filter was created, capacity and rate the schedule's).
   */
  private sub(j: number): { shape: SubFilterShape; positions: KeyPositions } | undefined {
    const listed = this.context.params.shapes!;
    if (j >= listed.length) return undefined;
    if (this.shapes.length <= j) {
      const capacities = subCapacities(this.schedule(), listed.length);
      const rates = subFprs(this.schedule(), listed.length);
      for (let i = this.shapes.length; i <= j; i++) {
        const { bits, hashes } = listed[i]!;
        this.shapes.push({ capacity: capacities[i]!, fpr: rates[i]!, bits, hashes });
        this.positions.push(new KeyPositions(partitionedLayout, bits, hashes, this.context.params.seed));
      }
    }
    return { shape: this.shapes[j]!, positions: this.positions[j]! };
  }

  /** The sub-filters' keys; for a filter that is gone, those this handle last knew of (for drop). */
  async dataKeys(): Promise<string[]> {
    let filters: number;
    try {
      filters = await this.filters('RedisBloomFilter');
    } catch (error) {
      if (!(error instanceof FilterNotFoundError)) throw error;
      filters = this.known;
    }
    return Array.from({ length: filters }, (_, i) => this.context.keys.sub(i));
  }

  /**
   * The chain's length as the meta hash says, checked: 1 to MAX_SUB_FILTERS, and no longer than its `shapes`;
   * FilterNotFoundError when the filter is gone.
   */
  private async filters(where: string): Promise<number> {
    const { client, keys, generation, name } = this.context;
    const [stored, filters] = (await client.hmget(keys.meta, 'generation', 'filters')) as (string | null)[];
    if (stored !== String(generation)) throw filterGone(where, name);
    return this.checkLength(where, filters);
  }

  /** A chain length read from Redis: an integer in [1, MAX_SUB_FILTERS] and within the meta hash's `shapes`. */
  private checkLength(where: string, value: unknown): number {
    const { name, params } = this.context;
    const count = checkSubFilterCount(where, name, value);
    if (count > params.shapes!.length) {
      throw new FormatError(
        `${where}: meta field filters of ${metaKey(name)} is ${count}, past the end of its shapes (${params.shapes!.length} sub-filters)`,
      );
    }
    return count;
  }

  async allocate(): Promise<void> {
    const { client, keys } = this.context;
    await allocateBytes(client, keys.sub(0), Math.ceil(this.sub(0)!.shape.bits / 8));
    await client.hset(keys.meta, 'filters', 1, 'count:0', 0);
  }

  addMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.run('RedisBloomFilter.addMany', keys, true);
  }

  hasMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.run('RedisBloomFilter.hasMany', keys, false);
  }

  /**
   * Sends the keys with the positions of sub-filters 0..known (known + 1 of them); when the chain has grown
   * further meanwhile (another writer, or this batch), the script answers the keys it could and the rest are sent
   * again with the new sub-filter's positions.
   */
  private async run(where: string, input: readonly Key[], add: boolean): Promise<boolean[]> {
    const list = keyList(where, input);
    const { client, keys, params } = this.context;
    const out = new Array<boolean>(list.length);
    const hashes = list.map((key) => {
      const hash = new Uint32Array(4);
      murmur3x86_128Into(key, params.seed, hash);
      return hash;
    });
    let next = 0;
    while (next < list.length) {
      let last = this.known;
      while (last > 0 && this.sub(last) === undefined) last--;
      const packed = new PackedOffsets();
      for (let i = next; i < list.length; i++) {
        for (let j = 0; j <= last; j++) {
          const positions = this.positions[j]!.ofHash(hashes[i]!);
          for (let h = 0; h < this.shapes[j]!.hashes; h++) packed.push(redisBitOffset(positions[h]!));
        }
      }
      const args: (number | Buffer)[] = [packed.buffer()];
      for (let j = 0; j <= last; j++)
        args.push(this.shapes[j]!.hashes, this.shapes[j]!.capacity, Math.ceil(this.shapes[j]!.bits / 8));
      args.push(this.context.generation);
      const subKeys = Array.from({ length: last + 1 }, (_, j) => keys.sub(j));
      const reply = (await runScript(client, add ? ADD : HAS, [keys.meta, ...subKeys], args).catch(
        (error: unknown) => {
          if (isGoneReply(error)) throw filterGone(where, this.context.name, error);
          if (error instanceof Error && error.message.startsWith('BLOOMKIT_BADMETA')) {
            const field = error.message.split(' ')[1];
            throw new FormatError(
              `${where}: meta field ${field} of ${metaKey(this.context.name)} is not valid (${field === 'filters' ? `an integer in [1, ${MAX_SUB_FILTERS}]` : 'a non-negative integer'} expected)`,
            );
          }
          throw error;
        },
      )) as [number, number, string];
      const [status, filters, answered] = reply;
      this.checkLength(where, filters);
      for (let i = 0; i < answered.length; i++) out[next + i] = answered.charCodeAt(i) === 49;
      next += answered.length;
      if (status === 1 && answered.length === 0 && filters <= last + 1) {
        throw new BloomError(
          `${where}: the scalable filter ${this.context.name} cannot grow past sub-filter ${filters - 1} (its shapes end there: the schedule's next sub-filter cannot exist or would not fit one Redis string of 2^32 bits)`,
        );
      }
      if (status !== 0 && status !== 1) throw new RedisFilterError(`${where}: unexpected reply from Redis`);
      this.known = filters;
    }
    return out;
  }

  async toLocal(count: number): Promise<LocalFilter> {
    const { client, keys, params } = this.context;
    const filters = await this.filters('RedisBloomFilter.export');
    const subs: PartitionedBloomFilter[] = [];
    for (let j = 0; j < filters; j++) {
      const { shape } = this.sub(j)!;
      const bytes = await readBytes(client, keys.sub(j), Math.ceil(shape.bits / 8));
      const subCount = checkCount(
        'RedisBloomFilter.export',
        this.context.name,
        `count:${j}`,
        await client.hget(keys.meta, `count:${j}`),
      );
      subs.push(
        new PartitionedBloomFilter(
          { bits: shape.bits, hashes: shape.hashes, seed: params.seed, maxBytes: Number.MAX_SAFE_INTEGER },
          {
            storage: new BitArray(shape.bits, { bytes, copy: false }),
            count: subCount,
            capacity: shape.capacity,
            fpr: shape.fpr,
          },
        ),
      );
    }
    this.known = filters;
    return ScalableBloomFilter.fromSubFilters({ ...this.schedule(), seed: params.seed, count }, subs);
  }

  async write(filter: LocalFilter): Promise<void> {
    const { client, keys } = this.context;
    const subs = (filter as ScalableBloomFilter).subFilters();
    const fields: (string | number)[] = ['filters', subs.length];
    for (const [j, sub] of subs.entries()) {
      const parts = sub.payloadParts();
      await writeBytes(client, keys.sub(j), parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      fields.push(`count:${j}`, sub.count);
    }
    await client.hset(keys.meta, ...fields);
    this.known = subs.length;
  }
}
