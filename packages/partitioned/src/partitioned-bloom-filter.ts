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

const KIND = kindById(FilterKind.Partitioned)!;

/**
 * A partitioned Bloom filter (Almeida et al., "Scalable Bloom Filters", IPL 2007, §3): m bits split into k slices
 * of s = m/k bits; position i lies in slice i only, so no two of a key's positions can collide.
 *
 * Contract: `has` never answers false for an added key; it answers true for a key never added with probability
 * p = (1 − (1 − 1/s)^n)^k after n adds, a little above the standard layout's rate for the same m. `create(n, p)`
 * picks the smallest m = k·s for which that is at most p. An explicit `bits` is rounded up to a multiple of k.
 *
 * Every slice fills at the same pace (each key sets exactly one bit per slice), which is what the scalable filter
 * relies on to know when a sub-filter is full. Limits: m up to 2^48 bits, paged above 2^32. Serialized form:
 * kind 2 of docs/FORMAT.md.
 */
export class PartitionedBloomFilter extends BloomEngine<BitArray> {
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
  static create(capacity: number, fpr: number, options?: SeedOption): PartitionedBloomFilter {
    const plan = planShape(KIND, capacity, fpr, options);
    return new PartitionedBloomFilter(plan, { capacity: plan.capacity, fpr: plan.fpr });
  }

  /**
   * Reads a filter written by {@link serialize}. Bytes of another kind, corrupt or truncated bytes get a
   * FormatError. With `copy: false` the filter works on `bytes` in place.
   */
  static deserialize(bytes: ByteSource, options?: DeserializeOptions): PartitionedBloomFilter {
    const { shape, state } = decodeSingleFilter<BitArray>(KIND, bytes, options);
    return new PartitionedBloomFilter(shape, state);
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(json: unknown, options?: DeserializeOptions): PartitionedBloomFilter {
    return PartitionedBloomFilter.deserialize(
      fromFilterJson('PartitionedBloomFilter.fromJSON', json, KIND.name),
      options,
    );
  }
}
