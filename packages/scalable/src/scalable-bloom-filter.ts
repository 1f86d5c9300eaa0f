import {
  type BloomFilter,
  type ByteSource,
  type DeserializeOptions,
  type FilterFact,
  type FilterJson,
  FORMAT_VERSION,
  FormatError,
  fact,
  IncompatibleFiltersError,
  type Key,
  type KindRecord,
  type SeedOption,
} from '@bloomkit/core';
import {
  checkAllocation,
  decodeChain,
  encodeChainParts,
  fromFilterJson,
  joinParts,
  MIN_ENVELOPE_BYTES,
  readDeserializeOptions,
  readOptions,
  resolveSeed,
  splitChain,
  toFilterJson,
} from '@bloomkit/core/internal';
import { batchHashes, checkHashBatch, checkInteger, hashBatch, keyList } from '@bloomkit/core/kit';
import { PartitionedBloomFilter, partitionedKind } from '@bloomkit/partitioned';
import { RUN_KEYS } from './pending-keys.js';
import { ChainCore } from './scalable-chain.js';
import { ADD_WHERE, HAS_WHERE, NAME, type ScalableOptions, scalableKind } from './scalable-kind.js';
import { decodeScalableParams, encodeScalableParams } from './scalable-params.js';
import {
  checkGrowth,
  checkSchedule,
  DEFAULT_GROWTH,
  DEFAULT_TIGHTENING,
  type Schedule,
  subCapacities,
  subCapacity,
  subFprs,
} from './schedule.js';

/** hasMany's answers, a batch at a time (grown once if a batch holds more keys). */
let manyFound = new Uint8Array(RUN_KEYS);

/** The smallest partitioned envelope: header, 40-byte params, a 1-byte payload, checksum. */
const MIN_SUB_FILTER_BYTES = MIN_ENVELOPE_BYTES + 40 + 1;

/**
 * A scalable Bloom filter (Almeida, Baquero, Preguiça & Hutchison, "Scalable Bloom Filters", Information
 * Processing Letters 101(6), 2007) for streams of unknown size: a chain of partitioned sub-filters. When the newest
 * is full (it holds its capacity c_i, about n0·g^i), a larger and tighter one (error P·(1 − r)·r^i) is chained instead of
 * rebuilding, so the keys already added never need to be seen again.
 *
 * Contract: `has` never answers false for an added key, and the false-positive rate stays at most the target P
 * at any size: the sub-filters' rates sum to P (see schedule.ts). Memory: each sub-filter's tighter error costs
 * more bits per key, and the newest is allocated whole. With the defaults (g = 1.5, r = 0.93), over every N from
 * 10^4 to 3·10^6 keys at P = 0.01, the chain holds 2.11× (from n0 = 1000) to 2.21× (from 100) the bits of an ideal
 * standard filter for N keys on geometric mean, and at most 2.75× and 2.86× right after a growth (schedule.ts).
 * At 10^6 keys from 1000: 22.4·10^6 bits in 16 sub-filters, 2.34×.
 *
 * `add` hashes the key once, looks for it in every sub-filter (newest first), and inserts it into the newest
 * only when it is absent. So `add` is the test-and-add of stream deduplication, and `count` is the number of
 * adds that returned true: the distinct keys added *less those that looked present already* — a new key that is a
 * false positive of the filter so far is neither inserted nor counted (1,000,000 distinct adds at P = 0.01 from
 * 1,000 gave count 992,896: the rest were false positives, within the target rate). Serialized form: kind 4 of
 * docs/FORMAT.md, the sub-filters as nested envelopes.
 */
export class ScalableBloomFilter extends ChainCore implements BloomFilter {
  /** The kind's format record. */
  static readonly kind: KindRecord = scalableKind;
  private constructor(
    schedule: Schedule,
    seed: number,
    filters: PartitionedBloomFilter[],
    count: number,
    maxBytes: number | undefined,
  ) {
    super(schedule, seed, filters, count, maxBytes);
  }

  /**
   * An empty filter whose first sub-filter holds `initialCapacity` keys and whose total false-positive rate
   * stays at most `fpr` as it grows.
   */
  static create(initialCapacity: number, fpr: number, options?: ScalableOptions): ScalableBloomFilter {
    const where = `${NAME}.create`;
    const o = readOptions(where, options);
    const schedule = checkSchedule(where, {
      initialCapacity,
      fpr,
      growth: o.growth ?? DEFAULT_GROWTH,
      tightening: o.tightening ?? DEFAULT_TIGHTENING,
    } as Schedule);
    const seed = resolveSeed(where, o.seed);
    const first = PartitionedBloomFilter.create(subCapacity(schedule, 0), subFprs(schedule, 1)[0]!, {
      seed,
      ...(o.maxBytes === undefined ? {} : { maxBytes: o.maxBytes }),
    });
    return new ScalableBloomFilter(schedule, seed, [first], 0, o.maxBytes);
  }

  /**
   * A filter holding `keys` whose first sub-filter is sized for as many keys as there are (at least 1), so it grows
   * only with the keys added after: `create` then `addAll`. A bad key throws before anything is built.
   */
  static from(keys: Iterable<Key>, fpr: number, options?: ScalableOptions): ScalableBloomFilter {
    const list = keyList(`${NAME}.from`, keys);
    const filter = ScalableBloomFilter.create(Math.max(1, list.length), fpr, options);
    filter.addAll(list);
    return filter;
  }

  /**
   * Reads a filter written by {@link serialize}: the outer envelope and every nested sub-filter are checked
   * (kind, seed, the capacity and rate the schedule gives sub-filter i, lengths, checksums) before use.
   */
  static deserialize(
    bytes: ByteSource,
    options?: DeserializeOptions & Pick<SeedOption, 'maxBytes'>,
  ): ScalableBloomFilter {
    const where = `${NAME}.deserialize`;
    const read = readDeserializeOptions(where, options);
    if (options?.maxBytes !== undefined) checkAllocation(where, 0, options.maxBytes);
    const envelope = decodeChain(scalableKind, bytes, { verifyChecksum: read.verifyChecksum, where });
    const params = decodeScalableParams(envelope.params, where);
    const payloadLength = envelope.payloadLength;
    if (params.filterCount > payloadLength / MIN_SUB_FILTER_BYTES) {
      throw new FormatError(
        `${where}: ${params.filterCount} sub-filters cannot fit in a payload of ${payloadLength} bytes`,
      );
    }
    checkGrowth(where, params, params.filterCount, FormatError);
    const rates = subFprs(params, params.filterCount);
    const capacities = subCapacities(params, params.filterCount);
    // Each nested header is read in O(1) to split the payload; each sub-filter's one full decode is its
    // deserialize, which verifies its checksum only when the caller asked for checksums.
    const filters = splitChain(envelope, partitionedKind, params.filterCount, where).map((bytes, i) => {
      const sub = PartitionedBloomFilter.deserialize(bytes, read);
      if (sub.seed !== envelope.seed) {
        throw new FormatError(`${where}: sub-filter ${i} has seed ${sub.seed}, expected ${envelope.seed}`);
      }
      if (sub.capacity !== capacities[i] || sub.fpr !== rates[i]) {
        throw new FormatError(
          `${where}: sub-filter ${i} is sized for ${sub.capacity} keys at ${sub.fpr}, expected ${capacities[i]} at ${rates[i]}`,
        );
      }
      return sub;
    });
    return new ScalableBloomFilter(params, envelope.seed, filters, params.count, options?.maxBytes);
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(
    json: unknown,
    options?: DeserializeOptions & Pick<SeedOption, 'maxBytes'>,
  ): ScalableBloomFilter {
    return ScalableBloomFilter.deserialize(
      fromFilterJson(`${NAME}.fromJSON`, json, scalableKind.name),
      options,
    );
  }

  /**
   * A filter over existing sub-filters, for a store that keeps the chain elsewhere (such as `@bloomkit/redis`
   * exporting a filter): the sub-filters must be the ones the schedule gives, in order (seed, capacity and rate of
   * each, as `deserialize` checks), else a FormatError. The sub-filters are used, not copied.
   */
  static fromSubFilters(
    schedule: Schedule & { readonly seed: number; readonly count: number },
    filters: readonly PartitionedBloomFilter[],
  ): ScalableBloomFilter {
    const where = `${NAME}.fromSubFilters`;
    const checked = checkSchedule(where, schedule);
    if (filters.length === 0)
      throw new FormatError(`${where}: a scalable filter has at least one sub-filter`);
    checkGrowth(where, checked, filters.length, FormatError);
    const rates = subFprs(checked, filters.length);
    const capacities = subCapacities(checked, filters.length);
    filters.forEach((sub, i) => {
      if (!(sub instanceof PartitionedBloomFilter) || sub.seed !== schedule.seed) {
        throw new FormatError(
          `${where}: sub-filter ${i} must be a PartitionedBloomFilter with seed ${schedule.seed}`,
        );
      }
      if (sub.capacity !== capacities[i] || sub.fpr !== rates[i]) {
        throw new FormatError(
          `${where}: sub-filter ${i} is sized for ${sub.capacity} keys at ${sub.fpr}, expected ${capacities[i]} at ${rates[i]}`,
        );
      }
    });
    checkInteger(where, 'count', schedule.count, 0, Number.MAX_SAFE_INTEGER);
    return new ScalableBloomFilter(checked, schedule.seed, [...filters], schedule.count, undefined);
  }

  /** Distinct keys added. */
  get count(): number {
    return this.counted;
  }

  /** Number of sub-filters. */
  get filterCount(): number {
    return this.filters.length;
  }

  /** Total bits of all sub-filters. */
  get bits(): number {
    let total = 0;
    for (const filter of this.filters) total += filter.bits;
    return total;
  }

  /** k of the newest sub-filter (the one new keys go to); older sub-filters use fewer. */
  get hashes(): number {
    return this.newest().hashes;
  }

  /** Keys the filter holds before it grows again: the sum of its sub-filters' capacities. */
  get capacity(): number {
    let total = 0;
    for (const filter of this.filters) total += filter.capacity!;
    return total;
  }

  /** Its sub-filters' number and how the next are sized (growth g, tightening r), for an inspector. */
  facts(): FilterFact[] {
    return [
      fact('subFilterCount', 'sub-filters', this.filterCount),
      fact('growth', 'growth g', this.growth),
      fact('tightening', 'tightening r', this.tightening),
    ];
  }

  /** The sub-filters, oldest first (read-only views for inspection; do not add to them). */
  subFilters(): readonly PartitionedBloomFilter[] {
    return this.filters;
  }

  /**
   * Adds `key` unless some sub-filter already reports it; true when it was added. When the newest sub-filter
   * holds its capacity, a new one is chained first.
   */
  add(key: Key): boolean {
    this.hashKey(key, ADD_WHERE);
    return this.addHashed();
  }

  has(key: Key): boolean {
    this.hashKey(key, HAS_WHERE);
    return this.findHash();
  }

  /**
   * `add` for a key already hashed: `hash[0..3]` hold h1..h4 of the key with this filter's seed, as
   * `hashInto` (or `Murmur3Stream`, for a key hashed in pieces) writes them in `@bloomkit/core/internal`.
   */
  addHash(hash: Int32Array): boolean {
    this.takeHash(hash, 0);
    return this.addHashed();
  }

  /** `has` for a key already hashed with this filter's seed (see {@link addHash}). */
  hasHash(hash: Int32Array): boolean {
    this.takeHash(hash, 0);
    return this.findHash();
  }

  /**
   * `addHash` for a batch of keys already hashed: key j's h1..h4 at `hashes[4j .. 4j + 3]` for j < `count` (as
   * `hashBatch` and `hashLineBatch` in `@bloomkit/core/internal` write them), added in order. `answers[j]`, when
   * given, is set to 1 when key j was new and 0 otherwise. Returns how many were new. Arguments are checked first.
   */
  addHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    checkHashBatch(`${NAME}.addHashes`, hashes, count, answers, false);
    return this.addBatch(hashes, count, answers);
  }

  /** `hasHash` for a batch of keys already hashed (see {@link addHashes}): `answers[j]` is 1 when key j may be in. */
  hasHashes(hashes: Int32Array, count: number, answers: Uint8Array): void {
    checkHashBatch(`${NAME}.hasHashes`, hashes, count, answers, true);
    this.findBatch(hashes, count, answers);
  }

  /**
   * Adds every key, in order; returns how many were new. The keys are read into a list and all checked first, so
   * a bad key leaves the filter unchanged. Keys are hashed a batch at a time (`hashBatch`: in WebAssembly where it
   * loads), once for all sub-filters.
   */
  addAll(keys: Iterable<Key>): number {
    const list = keyList(`${NAME}.addAll`, keys);
    let added = 0;
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, `${NAME}.addAll`);
      added += this.addBatch(batchHashes(), count, undefined);
      start += count;
    }
    return added;
  }

  /** `has` for each key; keys are hashed a batch at a time, each once for all sub-filters. */
  hasMany(keys: readonly Key[]): boolean[] {
    const list = keyList(`${NAME}.hasMany`, keys);
    const out = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, `${NAME}.hasMany`);
      if (manyFound.length < count) manyFound = new Uint8Array(count);
      this.findBatch(batchHashes(), count, manyFound);
      for (let j = 0; j < count; j++) out[start + j] = manyFound[j] === 1;
      start += count;
    }
    return out;
  }

  /** Set bits over all bits. */
  fillRatio(): number {
    let set = 0;
    for (const filter of this.filters) set += filter.fillRatio() * filter.bits;
    return set / this.bits;
  }

  /** Sum of the sub-filters' estimates. */
  estimatedCount(): number {
    let total = 0;
    for (const filter of this.filters) total += filter.estimatedCount();
    return total;
  }

  /** The compounded rate now: 1 − Π(1 − p_i), each p_i from its sub-filter's fill. */
  expectedFpr(): number {
    let miss = 1;
    for (const filter of this.filters) miss *= 1 - filter.expectedFpr();
    return 1 - miss;
  }

  /**
   * The union of two filters with the same parameters and seed: sub-filter i of the result is the union of
   * both sub-filters i. It is sound only while every merged sub-filter still holds at most its capacity (two
   * replicas of one stream, a filter and its own snapshot). Merging streams that would overfill a sub-filter,
   * and so break the error bound, throws IncompatibleFiltersError.
   */
  union(other: this): this {
    this.checkCompatible(other, 'union');
    const longer = other.filters.length > this.filters.length ? other.filters : this.filters;
    const merged: PartitionedBloomFilter[] = [];
    for (let i = 0; i < longer.length; i++) {
      const mine = this.filters[i];
      const theirs = other.filters[i];
      const sub = mine !== undefined && theirs !== undefined ? mine.union(theirs) : longer[i]!.clone();
      const capacity = sub.capacity!;
      // The estimate's noise is about 0.3·√capacity keys; allow 4 of those before calling it overfilled.
      if (sub.count > capacity + 1.2 * Math.sqrt(capacity) + 1) {
        throw new IncompatibleFiltersError(
          `${NAME}.union: sub-filter ${i} would hold about ${sub.count} keys for a capacity of ${capacity}, so the union could not keep its error bound; union only filters of overlapping streams`,
        );
      }
      merged.push(sub);
    }
    const count = Math.max(this.counted, other.counted, Math.round(merged.reduce((n, f) => n + f.count, 0)));
    return new ScalableBloomFilter(this.schedule(), this.seed, merged, count, this.maxBytes) as this;
  }

  /**
   * Not supported beyond one sub-filter: a key can sit in sub-filter i of one filter and j ≠ i of the other, so no
   * sub-filter-wise AND finds every common key. With one sub-filter each, it is that sub-filter's intersection.
   */
  intersect(other: this): this {
    this.checkCompatible(other, 'intersect');
    if (this.filters.length !== 1 || other.filters.length !== 1) {
      throw new IncompatibleFiltersError(
        `${NAME}.intersect: filters with more than one sub-filter cannot be intersected (they have ${this.filters.length} and ${other.filters.length}); a key may sit in different sub-filters of each`,
      );
    }
    const sub = this.filters[0]!.intersect(other.filters[0]!);
    return new ScalableBloomFilter(this.schedule(), this.seed, [sub], sub.count, this.maxBytes) as this;
  }

  clone(): this {
    return new ScalableBloomFilter(
      this.schedule(),
      this.seed,
      this.filters.map((filter) => filter.clone()),
      this.counted,
      this.maxBytes,
    ) as this;
  }

  /** Back to one empty sub-filter. */
  clear(): void {
    this.filters.length = 1;
    this.filters[0]!.clear();
    this.counted = 0;
  }

  /** Same parameters, seed, count and sub-filters. */
  equals(other: this): boolean {
    return (
      other instanceof ScalableBloomFilter &&
      this.sameSchedule(other) &&
      other.filters.length === this.filters.length &&
      this.filters.every((filter, i) => filter.equals(other.filters[i]!))
    );
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md §3.4): the sub-filters' files nested in order. */
  serialize(): Uint8Array {
    return joinParts(scalableKind, this.serializeParts());
  }

  /** The JSON form (`{ format: 'bloomkit', version, kind: 'scalable', base64 }`): the file in base64. */
  toJSON(): FilterJson {
    return toFilterJson(`${NAME}.toJSON`, scalableKind.name, FORMAT_VERSION, this.serialize());
  }

  /** The same bytes as {@link serialize} as parts; the payload parts are views of the sub-filters' storage. */
  serializeParts(): Uint8Array[] {
    const params = encodeScalableParams({
      ...this.schedule(),
      filterCount: this.filters.length,
      count: this.counted,
    });
    return encodeChainParts(scalableKind, this.seed, params, this.filters);
  }

  private sameSchedule(other: ScalableBloomFilter): boolean {
    return (
      other.initialCapacity === this.initialCapacity &&
      other.fpr === this.fpr &&
      other.growth === this.growth &&
      other.tightening === this.tightening &&
      other.seed === this.seed
    );
  }

  private checkCompatible(other: ScalableBloomFilter, operation: string): void {
    if (!(other instanceof ScalableBloomFilter)) {
      throw new IncompatibleFiltersError(`${NAME}.${operation}: other must be a ${NAME}`);
    }
    if (!this.sameSchedule(other)) {
      throw new IncompatibleFiltersError(
        `${NAME}.${operation}: filters must have the same initialCapacity, fpr, growth, tightening and seed`,
      );
    }
  }
}
