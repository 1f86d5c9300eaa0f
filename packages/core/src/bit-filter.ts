import type { BitArray } from './bit-array.js';
import { BloomEngine } from './engine.js';
import type { DeserializeOptions, SeedOption } from './filter.js';
import { fromFilterJson } from './json.js';
import type { Key } from './key.js';
import type { KindRecord } from './kinds.js';
import { newBitArray } from './new-bit-array.js';
import type { ByteSource } from './parts.js';
import { type FilterShapeOptions, type FilterState, planShape, resolveShape, resolveState } from './shape.js';
import { decodeSingleFilter } from './single-filter-codec.js';
import { keyList } from './validate.js';

/** A concrete bit-filter class as {@link BitFilter}'s statics see it: its kind's record and its constructor. */
export interface BitFilterClass<F extends BitFilter> {
  readonly kind: KindRecord;
  new (options: FilterShapeOptions, state?: FilterState<BitArray>): F;
}

/**
 * The shared base of the single bit filters (standard, partitioned, blocked): a class per kind that differ only in
 * their kind's record (its layout, docs/FORMAT.md §3.1), so a subclass is its record and its doc comment:
 *
 * ```ts
 * export class StandardBloomFilter extends BitFilter {
 *   static override readonly kind = standardKind;
 * }
 * ```
 *
 * The statics build the subclass they are called on (`StandardBloomFilter.create` returns a StandardBloomFilter).
 */
export abstract class BitFilter extends BloomEngine<BitArray> {
  /** The kind's format record; every subclass sets its own. */
  static readonly kind: KindRecord;

  /**
   * An empty filter with m = `bits` and k = `hashes`. For sizing from a capacity and rate use `create`.
   * `state` (advanced) supplies existing storage and counters, as `deserialize` and `union` do.
   */
  constructor(options: FilterShapeOptions, state?: FilterState<BitArray>) {
    const kind = (new.target as unknown as { readonly kind: KindRecord }).kind;
    const shape = resolveShape(kind, options, state?.storage === undefined ? { bitsPerSlot: 1 } : undefined);
    const resolved = resolveState(kind, state);
    super(kind, shape, resolved.storage ?? newBitArray(shape.bits), resolved);
  }

  /**
   * A filter for `capacity` keys whose predicted false-positive rate at capacity is at most `fpr`.
   * @param capacity expected number of distinct keys, an integer ≥ 1.
   * @param fpr target false-positive rate, in (0, 1).
   */
  static create<F extends BitFilter>(
    this: BitFilterClass<F>,
    capacity: number,
    fpr: number,
    options?: SeedOption,
  ): F {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    const plan = planShape(this.kind, capacity, fpr, options);
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    return new this(plan, { capacity: plan.capacity, fpr: plan.fpr });
  }

  /**
   * A filter holding `keys`, sized for as many keys as there are (at least 1) at rate `fpr`: `create` then
   * `addAll`. The keys are read once and all checked first, so a bad key throws before anything is built. For a set
   * that will grow, `create` with its final size instead.
   */
  static from<F extends BitFilter>(
    this: BitFilterClass<F>,
    keys: Iterable<Key>,
    fpr: number,
    options?: SeedOption,
  ): F {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    const list = keyList(`${this.kind.className}.from`, keys);
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    const plan = planShape(this.kind, Math.max(1, list.length), fpr, options);
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    const filter = new this(plan, { capacity: plan.capacity, fpr: plan.fpr });
    filter.addAll(list);
    return filter;
  }

  /**
   * Reads a filter written by `serialize`. Bytes of another kind, corrupt or truncated bytes get a FormatError.
   * With `copy: false` the filter works on `bytes` in place.
   */
  static deserialize<F extends BitFilter>(
    this: BitFilterClass<F>,
    bytes: ByteSource,
    options?: DeserializeOptions,
  ): F {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    const { shape, state } = decodeSingleFilter<BitArray>(this.kind, bytes, options);
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    return new this(shape, state);
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON<F extends BitFilter>(
    this: BitFilterClass<F>,
    json: unknown,
    options?: DeserializeOptions,
  ): F {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    const kind = this.kind;
    const bytes = fromFilterJson(`${kind.className}.fromJSON`, json, kind.name);
    const { shape, state } = decodeSingleFilter<BitArray>(kind, bytes, options);
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the static is called on.
    return new this(shape, state);
  }
}
