import {
  type ByteSource,
  type DeserializeOptions,
  derivePositions,
  type FilterFact,
  fact,
  InvalidArgumentError,
  type Key,
  type KindRecord,
  type SeedOption,
  standardLayout,
} from '@bloomkit/core';
import {
  BloomEngine,
  decodeSingleFilter,
  fromFilterJson,
  newCounterArray,
  planShape,
  readOptions,
  resolveShape,
  resolveState,
} from '@bloomkit/core/internal';
import {
  batchHashes,
  COUNTER_BITS,
  type CounterArray,
  type CounterBits,
  checkHashAt,
  checkHashBatch,
  checkOneOf,
  type FilterShapeOptions,
  type FilterState,
  hashBatch,
  hashInto,
  keyList,
} from '@bloomkit/core/kit';
import type { StandardBloomFilter } from '@bloomkit/standard';
import { toStandardFilter } from './to-standard.js';

/** Kind 3 of docs/FORMAT.md: counters in the standard layout, 4, 8 or 16 bits wide. */
export const countingKind: KindRecord = {
  id: 3,
  name: 'counting',
  className: 'CountingBloomFilter',
  params: 'single',
  layout: standardLayout,
  counterWidths: [4, 8, 16],
};
const KIND = countingKind;

/** Counter width used when none is given: 4 bits, enough for distinct keys (see the class comment). */
export const DEFAULT_COUNTER_BITS: CounterBits = 4;

/** Options of {@link CountingBloomFilter.create}. */
export interface CountingCreateOptions extends SeedOption {
  /** Bits per counter: 4, 8 or 16. Default {@link DEFAULT_COUNTER_BITS}. */
  readonly counterBits?: CounterBits;
}

/** Options of the explicit constructor: m counters, k hashes, the counter width and the seed. */
export interface CountingShapeOptions extends FilterShapeOptions {
  /** Bits per counter: 4, 8 or 16. Default {@link DEFAULT_COUNTER_BITS}. */
  readonly counterBits?: CounterBits;
}

/**
 * A counting Bloom filter (Fan, Cao, Almeida & Broder, "Summary Cache: A Scalable Wide-Area Web Cache Sharing
 * Protocol", IEEE/ACM Transactions on Networking 8(3), 2000, §V): m counters instead of m bits, so keys can be
 * deleted. A key is present when its k counters are all non-zero. The rate is the standard filter's,
 * (1 − (1 − 1/m)^{kn})^k, for n keys present.
 *
 * Contract: a key added and not deleted since is always found. `delete` never creates a false negative for a key
 * that was added: it changes nothing when the key is certainly absent (a counter is zero), and it never lowers a
 * saturated counter. The one way to lose a key is to delete a key that was never added but is a false positive.
 * That lowers other keys' counters, the inherent limit of counting filters, so delete only what you added.
 *
 * Saturation (Fan et al. 2000, §V.C): with the optimal k, the probability that any of m counters reaches i after
 * n distinct keys is at most m·(e·ln 2 / i)^i. That is 1.37·10^-15·m for 4-bit counters (i = 16), so 1.4·10^-6 for
 * 10^9 counters, and it is negligible for 8 and 16 bits. Adding the same key again and again is what saturates
 * counters: a 4-bit counter saturates after 15 adds of one key (8-bit: 255, 16-bit: 65,535). A saturated counter
 * stays saturated, so the filter never forgets a key because of it. It may keep answering true for keys deleted
 * since, and {@link saturatedCount} says how many counters are stuck.
 *
 * Memory: `counterBits` times a standard filter's. Serialized form: kind 3 of docs/FORMAT.md.
 */
export class CountingBloomFilter extends BloomEngine<CounterArray> {
  /** The kind's format record. */
  static readonly kind: KindRecord = countingKind;
  /** Bits per counter. */
  readonly counterBits: CounterBits;
  /** Scratch for the deletes and countOf: the key's hash and its k positions. */
  private readonly scratchHash = new Int32Array(4);
  private readonly scratchPositions: Float64Array;

  /**
   * An empty filter with m = `bits` counters of `counterBits` bits and k = `hashes`. `state` (advanced) supplies
   * existing counters, as `deserialize` and `union` do.
   */
  constructor(options: CountingShapeOptions, state?: FilterState<CounterArray>) {
    const width = checkOneOf<CounterBits>(
      `new ${KIND.className}`,
      'counterBits',
      options?.counterBits ?? DEFAULT_COUNTER_BITS,
      COUNTER_BITS,
    );
    const shape = resolveShape(
      KIND,
      options,
      state?.storage === undefined ? { bitsPerSlot: width } : undefined,
    );
    const resolved = resolveState(KIND, state);
    const storage = resolved.storage ?? newCounterArray(shape.bits, width);
    if (storage.width !== width) {
      throw new InvalidArgumentError(
        `new ${KIND.className}: state.storage must hold ${width}-bit counters, got ${storage.width}-bit`,
      );
    }
    super(KIND, shape, storage, resolved);
    this.counterBits = width;
    this.scratchPositions = new Float64Array(shape.hashes);
  }

  /**
   * A filter for `capacity` keys present at once, whose predicted false-positive rate at capacity is at most `fpr`
   * (the same m and k as `StandardBloomFilter.create`).
   */
  static create(capacity: number, fpr: number, options?: CountingCreateOptions): CountingBloomFilter {
    const o = readOptions(`${KIND.className}.create`, options);
    const counterBits = checkOneOf<CounterBits>(
      `${KIND.className}.create`,
      'counterBits',
      o.counterBits ?? DEFAULT_COUNTER_BITS,
      COUNTER_BITS,
    );
    const plan = planShape(KIND, capacity, fpr, o, counterBits);
    return new CountingBloomFilter({ ...plan, counterBits }, { capacity: plan.capacity, fpr: plan.fpr });
  }

  /**
   * A filter holding `keys` (each occurrence counted: a key given twice needs two deletes), sized for as many keys as
   * there are (at least 1) at rate `fpr`: `create` then `addAll`. A bad key throws before anything is built.
   */
  static from(keys: Iterable<Key>, fpr: number, options?: CountingCreateOptions): CountingBloomFilter {
    const list = keyList(`${KIND.className}.from`, keys);
    const filter = CountingBloomFilter.create(Math.max(1, list.length), fpr, options);
    filter.addAll(list);
    return filter;
  }

  /**
   * Reads a filter written by {@link serialize}: checks the envelope, a counter width of 4, 8 or 16, a payload of
   * exactly ⌈m·w/8⌉ bytes and a zero unused nibble. With `copy: false` it works on `bytes` in place.
   */
  static deserialize(bytes: ByteSource, options?: DeserializeOptions): CountingBloomFilter {
    const { shape, state } = decodeSingleFilter<CounterArray>(KIND, bytes, options);
    return new CountingBloomFilter({ ...shape, counterBits: shape.counterBits as CounterBits }, state);
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(json: unknown, options?: DeserializeOptions): CountingBloomFilter {
    return CountingBloomFilter.deserialize(
      fromFilterJson('CountingBloomFilter.fromJSON', json, KIND.name),
      options,
    );
  }

  /**
   * Removes one occurrence of `key`. When any of its counters is zero the key is certainly absent: returns false
   * and changes nothing. Otherwise decrements each of its counters (a saturated one stays) and returns true.
   * `count` drops by one when a counter reaches zero, that is when the key has left the filter.
   */
  delete(key: Key): boolean {
    hashInto(key, this.seed, this.scratchHash, 'CountingBloomFilter.delete');
    return this.deleteHashed();
  }

  /** `delete` for a key already hashed with this filter's seed: `hash[0..3]` hold h1..h4 (see `addHash`). */
  deleteHash(hash: Int32Array): boolean {
    checkHashAt('CountingBloomFilter.deleteHash', hash, 0);
    this.takeHash(hash, 0);
    return this.deleteHashed();
  }

  /**
   * `delete` for each key, in order: `result[j]` is what `delete(keys[j])` returns at its turn (a key given twice
   * is deleted twice). Atomic as `addAll`: the keys are read once and all checked before the first is deleted, so
   * a bad key leaves the filter unchanged; then they are hashed a batch at a time (in WebAssembly where it loads).
   */
  deleteMany(keys: Iterable<Key>): boolean[] {
    const list = keyList('CountingBloomFilter.deleteMany', keys);
    const out = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, 'CountingBloomFilter.deleteMany');
      const hashes = batchHashes();
      for (let j = 0; j < count; j++) {
        this.takeHash(hashes, j * 4);
        out[start + j] = this.deleteHashed();
      }
      start += count;
    }
    return out;
  }

  /**
   * `deleteHash` for a batch of keys already hashed: key j's h1..h4 at `hashes[4j .. 4j + 3]` for j < `count`
   * (as `addHashes` takes them), deleted in order. `answers[j]`, when given, is set to 1 when key j was deleted
   * and 0 when it was certainly absent. Returns how many were deleted. Arguments are checked first (typed errors),
   * so a bad call changes nothing.
   */
  deleteHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    checkHashBatch('CountingBloomFilter.deleteHashes', hashes, count, answers, false);
    let deleted = 0;
    for (let j = 0; j < count; j++) {
      this.takeHash(hashes, j * 4);
      const yes = this.deleteHashed();
      if (yes) deleted++;
      if (answers !== undefined) answers[j] = yes ? 1 : 0;
    }
    return deleted;
  }

  /**
   * {@link delete} of the key whose hash is in the scratch hash. Checks first, changes after: every counter must be
   * non-zero, and a position that repeats among the k (rare: about k²/2m of keys) must hold a counter of at least
   * its repeats, since each repeat takes one more decrement. Then each counter below the maximum loses one.
   */
  private deleteHashed(): boolean {
    const positions = this.scratchPositions;
    const k = this.hashes;
    derivePositions(this.scratchHash, this.geometry, k, positions);
    const counters = this.store;
    let repeats = false;
    for (let j = 0; j < k; j++) {
      const position = positions[j]!;
      if (counters.get(position) === 0) return false;
      for (let i = 0; i < j; i++) if (positions[i] === position) repeats = true;
    }
    if (repeats && !coversRepeats(counters, positions, k)) return false;
    const max = counters.max;
    let left = false;
    for (let j = 0; j < k; j++) {
      const position = positions[j]!;
      // Read again: a repeated position sees its earlier decrement.
      const value = counters.get(position);
      if (value === max) continue;
      counters.set(position, value - 1);
      if (value === 1) left = true;
    }
    if (left && this.counted > 0) this.counted--;
    return true;
  }

  /** Copies h1..h4 from `hash[at .. at + 3]` into the scratch hash (four words: no view, no allocation). */
  private takeHash(hash: Int32Array, at: number): void {
    const own = this.scratchHash;
    own[0] = hash[at]!;
    own[1] = hash[at + 1]!;
    own[2] = hash[at + 2]!;
    own[3] = hash[at + 3]!;
  }

  /**
   * The smallest of the key's counters (each divided by how often its position repeats among the key's k): an
   * upper bound on how many times the key was added, net of deletes. 0 means certainly absent. When that
   * smallest counter is saturated, the bound is unknown and the result is Infinity.
   */
  countOf(key: Key): number {
    const positions = this.locate(key, 'CountingBloomFilter.countOf');
    let smallest = Number.POSITIVE_INFINITY;
    for (let j = 0; j < this.hashes; j++) {
      const value = this.store.get(positions[j]!);
      if (value === this.store.max) continue;
      smallest = Math.min(smallest, Math.floor(value / multiplicity(positions, this.hashes, j)));
    }
    return smallest;
  }

  /** Number of counters stuck at their maximum (2^counterBits − 1). */
  saturatedCount(): number {
    return this.store.saturatedCount();
  }

  /** Its counters' width and how many are stuck at their maximum, for an inspector (`bloomkit info`, the page). */
  facts(): FilterFact[] {
    const saturated = this.saturatedCount();
    return [
      fact('counterBits', 'counter width', this.counterBits, `${this.counterBits} bits`),
      fact('saturatedCounters', 'counters at their maximum', saturated),
    ];
  }

  /**
   * A StandardBloomFilter with the same m, k and seed whose bit i is set where counter i > 0: it answers `has`
   * exactly as this filter does, in 1/counterBits of the memory. This is the compact, read-only copy that a
   * service ships to its readers.
   */
  toStandard(): StandardBloomFilter {
    return toStandardFilter(this.store, this, {
      count: this.counted,
      capacity: this.capacity,
      fpr: this.fpr,
    });
  }

  /** The key's k counter positions (the same ones `add` increments), in a buffer reused by every call. */
  private locate(key: Key, where: string): Float64Array {
    hashInto(key, this.seed, this.scratchHash, where);
    derivePositions(this.scratchHash, this.geometry, this.hashes, this.scratchPositions);
    return this.scratchPositions;
  }
}

/**
 * Every counter of `positions[0, k)` that is below the maximum holds at least as many as its position appears
 * among the k (a saturated one is never decremented, so it covers any number).
 */
function coversRepeats(counters: CounterArray, positions: Float64Array, k: number): boolean {
  for (let j = 0; j < k; j++) {
    const value = counters.get(positions[j]!);
    if (value !== counters.max && value < multiplicity(positions, k, j)) return false;
  }
  return true;
}

/** How many of positions[0, k) equal positions[j]. */
function multiplicity(positions: Float64Array, k: number, j: number): number {
  const target = positions[j]!;
  let times = 0;
  for (let i = 0; i < k; i++) if (positions[i] === target) times++;
  return times;
}
