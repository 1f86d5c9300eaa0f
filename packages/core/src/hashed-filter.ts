import { IncompatibleFiltersError, InvalidArgumentError } from './errors.js';
import type { BloomFilter, DeserializeOptions, SeedOption } from './filter.js';
import { resolveSeed } from './filter.js';
import { decodeFilterParams, encodeFilterParams, type FilterParams } from './filter-params.js';
import { decodeEnvelope, encodeEnvelope, type FilterKind } from './format.js';
import { describe, type Key } from './key.js';
import { KeyLocator } from './key-locator.js';
import { murmur3x86_128Into } from './murmur3.js';
import { chooseShape, type Layout, MAX_HASHES } from './params.js';
import { MAX_BITS } from './positions.js';
import type { FilterStorage } from './storage.js';
import { checkInteger, checkKeyArray, checkKeyIterable } from './validate.js';

/** What a filter class is: its format kind, its public name (for messages) and its position layout. */
export interface FilterKindInfo {
  readonly kind: FilterKind;
  readonly name: string;
  readonly layout: Layout;
}

/** The explicit shape of a filter: m, k and the seed. */
export interface FilterShapeOptions extends SeedOption {
  /** m: an integer in [1, 2^48]. The partitioned layout rounds it up to a multiple of k. */
  readonly bits: number;
  /** k: an integer in [1, 64]. */
  readonly hashes: number;
}

/** A validated shape, seed resolved. */
export interface ResolvedShape {
  readonly bits: number;
  readonly hashes: number;
  readonly seed: number;
}

/** What a filter carries beyond its shape, when it is rebuilt (deserialize, clone, union) rather than new. */
export interface FilterState<S> {
  /** Existing storage of exactly the filter's size. */
  readonly storage?: S;
  /** Adds that returned true. Default 0. */
  readonly count?: number;
  /** Set by `create`: the capacity and target rate the filter was sized for. */
  readonly capacity?: number | undefined;
  readonly fpr?: number | undefined;
}

/** Keys hashed ahead per round of {@link HashedFilter.hasMany}. */
const BATCH = 256;

/** Validates `{ bits, hashes, seed }` for `info`'s kind; rounds m up to a multiple of k for the partitioned layout. */
export function resolveShape(info: FilterKindInfo, options: FilterShapeOptions): ResolvedShape {
  const where = `new ${info.name}`;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `${where}: options must be an object { bits, hashes, seed? }, got ${describe(options)}`,
    );
  }
  const hashes = checkInteger(where, 'hashes', options.hashes, 1, MAX_HASHES);
  let bits = checkInteger(where, 'bits', options.bits, 1, MAX_BITS);
  if (info.layout === 'partitioned') {
    bits = Math.ceil(bits / hashes) * hashes;
    if (bits > MAX_BITS)
      throw new InvalidArgumentError(`${where}: bits rounded up to a multiple of hashes exceeds 2^48`);
  }
  return { bits, hashes, seed: resolveSeed(where, options.seed) };
}

/**
 * The shape `create(capacity, fpr)` builds: the smallest m, with its best k, whose predicted rate at `capacity`
 * keys is at most `fpr` (see {@link chooseShape}).
 */
export function planShape(
  info: FilterKindInfo,
  capacity: number,
  fpr: number,
  options: SeedOption = {},
): ResolvedShape & { capacity: number; fpr: number } {
  const where = `${info.name}.create`;
  const shape = chooseShape(capacity, fpr, info.layout, where);
  return { bits: shape.bits, hashes: shape.hashes, seed: resolveSeed(where, options.seed), capacity, fpr };
}

/** Decodes a single filter's envelope and params for `info`'s kind; the payload is a view into `bytes`. */
export function readFilterEnvelope(
  info: FilterKindInfo,
  bytes: Uint8Array,
  options: DeserializeOptions = {},
): { seed: number; params: FilterParams; payload: Uint8Array } {
  const where = `${info.name}.deserialize`;
  const verifyChecksum = options.verifyChecksum ?? true;
  const envelope = decodeEnvelope(bytes, { expectedKind: info.kind, verifyChecksum, where });
  const params = decodeFilterParams(envelope.params, where);
  return { seed: envelope.seed, params, payload: envelope.payload };
}

/**
 * The shared body of every single filter (standard, partitioned, counting): a {@link KeyLocator} turns keys into
 * positions and the subclass's storage answers for them. Subclasses supply the storage operations
 * ({@link insert}, {@link probe}), the statistics and the payload.
 */
export abstract class HashedFilter<Self extends HashedFilter<Self, S>, S extends FilterStorage<S>>
  implements BloomFilter<Self>
{
  readonly bits: number;
  readonly hashes: number;
  readonly seed: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
  /** The storage: bits or counters. */
  protected readonly storage: S;
  protected readonly locator: KeyLocator;
  protected readonly info: FilterKindInfo;
  protected counted: number;
  private batch: Float64Array | undefined;
  private readonly addWhere: string;
  private readonly hasWhere: string;

  protected constructor(info: FilterKindInfo, shape: ResolvedShape, storage: S, state: FilterState<S>) {
    this.info = info;
    this.bits = shape.bits;
    this.hashes = shape.hashes;
    this.seed = shape.seed;
    this.storage = storage;
    this.capacity = state.capacity;
    this.fpr = state.fpr;
    this.counted = state.count ?? 0;
    this.locator = new KeyLocator(info.layout, shape.bits, shape.hashes, shape.seed);
    this.addWhere = `${info.name}.add`;
    this.hasWhere = `${info.name}.has`;
  }

  /** Adds that returned true. */
  get count(): number {
    return this.counted;
  }

  /** Sets the key's positions; true when one changed. */
  protected abstract insert(positions: Float64Array, offset: number): boolean;
  /** True when all the key's positions are set. */
  protected abstract probe(positions: Float64Array, offset: number): boolean;
  /** A new filter of this kind with the same shape over `storage`. */
  protected abstract spawn(storage: S, count: number): Self;
  /** Counter width for the params block (0 for bit filters). */
  protected abstract counterWidth(): number;

  abstract fillRatio(): number;
  abstract estimatedCount(): number;
  abstract expectedFpr(): number;

  /**
   * A new filter holding the keys of both: bit-identical to one filter built from both key sets (bits: OR;
   * counters: saturating sum, so multiplicities add). Its `count` is the fill-ratio estimate, because how many
   * adds would have returned true is not known.
   */
  union(other: Self): Self {
    this.checkCompatible(other, 'union');
    const storage = this.storage.clone();
    storage.unionWith(other.storage);
    return this.spawnEstimated(storage);
  }

  /**
   * A new filter that finds every key present in both (bits: AND; counters: minimum). Its false-positive rate is at
   * most either source's, and may exceed that of a filter built from the true intersection. For counting filters
   * its counters are not the counts of any multiset, so do not delete from it. `count` is the fill-ratio estimate.
   */
  intersect(other: Self): Self {
    this.checkCompatible(other, 'intersect');
    const storage = this.storage.clone();
    storage.intersectWith(other.storage);
    return this.spawnEstimated(storage);
  }

  clone(): Self {
    return this.spawn(this.storage.clone(), this.counted);
  }

  clear(): void {
    this.storage.clear();
    this.counted = 0;
  }

  /** Same kind, m, k, seed, counter width and contents (count, capacity and fpr are not compared). */
  equals(other: Self): boolean {
    return this.sameShape(other) && this.storage.equals(other.storage);
  }

  add(key: Key): boolean {
    if (this.insert(this.locator.locate(key, this.addWhere), 0)) {
      this.counted++;
      return true;
    }
    return false;
  }

  has(key: Key): boolean {
    return this.probe(this.locator.locate(key, this.hasWhere), 0);
  }

  /**
   * `has` for a key already hashed: `hash` must be {@link murmur3x86_128Into} of the key with this filter's seed.
   * Lets several filters with one seed (the sub-filters of a scalable filter) share one hash per key.
   */
  hasHash(hash: Uint32Array): boolean {
    this.locator.derive(hash, this.locator.positions, 0);
    return this.probe(this.locator.positions, 0);
  }

  /** `add` for a key already hashed with this filter's seed (see {@link hasHash}). */
  addHash(hash: Uint32Array): boolean {
    this.locator.derive(hash, this.locator.positions, 0);
    if (this.insert(this.locator.positions, 0)) {
      this.counted++;
      return true;
    }
    return false;
  }

  /**
   * Adds every key; returns how many were new. An array is checked whole first, so a bad key leaves the filter
   * unchanged; a lazy iterable is consumed once, and keys before a bad one stay added.
   */
  addAll(keys: Iterable<Key>): number {
    checkKeyIterable(`${this.info.name}.addAll`, keys);
    let added = 0;
    for (const key of keys) if (this.add(key)) added++;
    return added;
  }

  /** `has` for every key: hashes a batch of keys into a position buffer, then probes them all. */
  hasMany(keys: readonly Key[]): boolean[] {
    checkKeyArray(`${this.info.name}.hasMany`, keys);
    const k = this.hashes;
    if (this.batch === undefined) this.batch = new Float64Array(BATCH * k);
    const buffer = this.batch;
    const hash = this.locator.hash;
    const out = new Array<boolean>(keys.length);
    for (let start = 0; start < keys.length; start += BATCH) {
      const end = Math.min(start + BATCH, keys.length);
      for (let i = start; i < end; i++) {
        murmur3x86_128Into(keys[i]!, this.seed, hash);
        this.locator.derive(hash, buffer, (i - start) * k);
      }
      for (let i = start; i < end; i++) out[i] = this.probe(buffer, (i - start) * k);
    }
    return out;
  }

  serialize(): Uint8Array {
    return encodeEnvelope({
      kind: this.info.kind,
      seed: this.seed,
      params: encodeFilterParams({
        bits: this.bits,
        hashes: this.hashes,
        counterBits: this.counterWidth(),
        count: this.counted,
        capacity: this.capacity,
        fpr: this.fpr,
      }),
      payloadLength: this.storage.byteLength,
      writePayload: (target, offset) => this.storage.copyTo(target, offset),
    });
  }

  /**
   * A sibling over `storage` whose `count` is the fill-ratio estimate (for union and intersect, where how many
   * adds would have returned true is not known).
   */
  protected spawnEstimated(storage: S): Self {
    const filter = this.spawn(storage, 0);
    const estimate = filter.estimatedCount();
    filter.counted = Number.isFinite(estimate) ? Math.round(estimate) : this.bits;
    return filter;
  }

  /** The shape, for subclasses building a sibling filter. */
  protected shape(): ResolvedShape {
    return { bits: this.bits, hashes: this.hashes, seed: this.seed };
  }

  /** Throws {@link IncompatibleFiltersError} unless `other` is the same kind with the same m, k, seed and width. */
  protected checkCompatible(other: Self, operation: string): void {
    const where = `${this.info.name}.${operation}`;
    if (!(other instanceof HashedFilter) || other.info.kind !== this.info.kind) {
      throw new IncompatibleFiltersError(
        `${where}: other must be a ${this.info.name}, got ${describe(other)}`,
      );
    }
    const mismatch =
      other.bits !== this.bits
        ? `bits ${this.bits} vs ${other.bits}`
        : other.hashes !== this.hashes
          ? `hashes ${this.hashes} vs ${other.hashes}`
          : other.seed !== this.seed
            ? `seed ${this.seed} vs ${other.seed}`
            : other.counterWidth() !== this.counterWidth()
              ? `counterBits ${this.counterWidth()} vs ${other.counterWidth()}`
              : undefined;
    if (mismatch !== undefined) {
      throw new IncompatibleFiltersError(
        `${where}: filters must have the same bits, hashes, seed; ${mismatch}`,
      );
    }
  }

  /** True when `other` is the same kind with the same shape (the subclass compares contents). */
  protected sameShape(other: Self): boolean {
    return (
      other instanceof HashedFilter &&
      other.info.kind === this.info.kind &&
      other.bits === this.bits &&
      other.hashes === this.hashes &&
      other.seed === this.seed &&
      other.counterWidth() === this.counterWidth()
    );
  }
}
