import { type ByteSource, type DeserializeOptions, FilterKind, type SeedOption } from '@bloomkit/core';
import {
  BitArray,
  BloomEngine,
  decodeSingleFilter,
  type FilterShapeOptions,
  type FilterState,
  fromFilterJson,
  kindById,
  planShape,
  resolveShape,
  resolveState,
} from '@bloomkit/core/internal';

const KIND = kindById(FilterKind.Standard)!;

/**
 * The classic Bloom filter (Bloom, CACM 1970): m bits, k positions per key anywhere in the m bits.
 *
 * Contract: `has` never answers false for an added key; it answers true for a key never added with probability
 * p = (1 − (1 − 1/m)^{kn})^k after n adds (Broder & Mitzenmacher 2004, §2.1). `create(n, p)` picks the smallest m
 * for which that is at most p: about 9.6 bits per key at p = 0.01 and 14.4 at p = 0.001, k = 7 and 10.
 *
 * Limits: m up to 2^48 bits; above 2^32 bits the bits are paged (see BitArray). Serialized form: kind 1 of
 * docs/FORMAT.md.
 */
export class StandardBloomFilter extends BloomEngine<BitArray> {
  /**
   * An empty filter with m = `bits` and k = `hashes`. For sizing from a capacity and rate use {@link create}.
   * `state` (advanced) supplies existing storage and counters, as `deserialize` and `union` do.
   */
  constructor(options: FilterShapeOptions, state?: FilterState<BitArray>) {
    const shape = resolveShape(KIND, options, state?.storage === undefined ? { bitsPerSlot: 1 } : undefined);
    const resolved = resolveState(KIND, state);
    super(KIND, shape, resolved.storage ?? new BitArray(shape.bits), resolved);
  }

  /**
   * A filter for `capacity` keys whose predicted false-positive rate at capacity is at most `fpr`.
   * @param capacity expected number of distinct keys, an integer ≥ 1.
   * @param fpr target false-positive rate, in (0, 1).
   */
  static create(capacity: number, fpr: number, options?: SeedOption): StandardBloomFilter {
    const plan = planShape(KIND, capacity, fpr, options);
    return new StandardBloomFilter(plan, { capacity: plan.capacity, fpr: plan.fpr });
  }

  /**
   * Reads a filter written by {@link serialize}. Bytes of another kind, corrupt or truncated bytes get a
   * FormatError. With `copy: false` the filter works on `bytes` in place.
   */
  static deserialize(bytes: ByteSource, options?: DeserializeOptions): StandardBloomFilter {
    const { shape, state } = decodeSingleFilter<BitArray>(KIND, bytes, options);
    return new StandardBloomFilter(shape, state);
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(json: unknown, options?: DeserializeOptions): StandardBloomFilter {
    return StandardBloomFilter.deserialize(
      fromFilterJson('StandardBloomFilter.fromJSON', json, KIND.name),
      options,
    );
  }
}
