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

const KIND = kindById(FilterKind.Blocked)!;

/**
 * A blocked Bloom filter (RocksDB's FastLocalBloom; Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient
 * Bloom Filters", JEA 14, 2009): m bits in blocks of 512 bits, one 64-byte cache line. A key's hash picks one block
 * and its k positions inside it, so `add` and `has` touch one cache line where a standard filter touches k: the
 * layout for filters larger than the CPU caches, and the one that shards (any run of whole blocks is
 * self-contained).
 *
 * Contract: `has` never answers false for an added key; it answers true for a key never added with probability
 * p = Σ_j Pr[J = j]·(1 − (1 − 1/512)^{kj})^k after n adds, J ~ Poisson(512·n/m) the keys in a block. Blocks fill
 * unevenly, so for the same rate a blocked filter needs more bits than a standard one: `create(n, p)` picks the
 * smallest m (a multiple of 512) whose predicted rate is at most p — +0.5% bits at p = 0.1, +3.2% at 0.01, +7.7% at
 * 10^-3, +14% at 10^-4, +23% at 10^-5 (k = 3, 6, 9, 12, 14).
 *
 * Limits: m up to 2^41 bits (2^32 blocks, 256 GiB); an explicit `bits` is rounded up to a multiple of 512.
 * Serialized form: kind 5 of docs/FORMAT.md.
 */
export class BlockedBloomFilter extends BloomEngine<BitArray> {
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
  static create(capacity: number, fpr: number, options?: SeedOption): BlockedBloomFilter {
    const plan = planShape(KIND, capacity, fpr, options);
    return new BlockedBloomFilter(plan, { capacity: plan.capacity, fpr: plan.fpr });
  }

  /**
   * Reads a filter written by {@link serialize}. Bytes of another kind, corrupt or truncated bytes get a
   * FormatError. With `copy: false` the filter works on `bytes` in place.
   */
  static deserialize(bytes: ByteSource, options?: DeserializeOptions): BlockedBloomFilter {
    const { shape, state } = decodeSingleFilter<BitArray>(KIND, bytes, options);
    return new BlockedBloomFilter(shape, state);
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(json: unknown, options?: DeserializeOptions): BlockedBloomFilter {
    return BlockedBloomFilter.deserialize(
      fromFilterJson('BlockedBloomFilter.fromJSON', json, KIND.name),
      options,
    );
  }
}
