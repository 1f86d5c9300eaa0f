// `@bloomkit/core/kit`: the parts a filter is made of, for applications and private kinds that build their own: the
// base class of the bit kinds, bit and counter storage, the hashes in their batch and streaming forms, the CRC-32C,
// and the argument checks whose errors name the parameter. It follows the package's semver like `@bloomkit/core`
// itself. What only the bloomkit packages use (the engine, the codecs, kernel memory) is `@bloomkit/core/internal`.

/**
 * Keys hashed a batch at a time (in WebAssembly where it loads), as `hashInto` hashes one: `hashBatch` hashes keys
 * of a checked list and says how many, `hashLineBatch` the lines of a buffer where they lie (`batchLineEnds` says
 * where each ends), `batchHashes` is the array their h1..h4 are in, four words a key.
 */
export { batchHashes, batchLineEnds, hashBatch, hashLineBatch } from './batch-hash.js';
/** m bits over pages (up to 2^48 bits): a fresh zeroed array or a view of given bytes. */
export { BitArray } from './bit-array.js';
/**
 * The base class of the bit kinds (standard, partitioned, blocked): a kind is its record (`static kind`) and the
 * statics build the subclass they are called on. A private kind extends it and joins the table of kinds with
 * `registerKind` (`@bloomkit/filters`).
 */
export { BitFilter } from './bit-filter.js';
/** CRC-32C (Castagnoli) of bytes, the checksum of every bloomkit file (docs/FORMAT.md §1). */
export { crc32c } from './checksum.js';
/** m counters of 4, 8 or 16 bits over pages, saturating at their maximum; the widths allowed. */
export { COUNTER_BITS, CounterArray, type CounterBits } from './counter-array.js';
/**
 * MurmurHash3 x86_128 of a key's UTF-8 bytes with a seed, as h1..h4 in an Int32Array (`hashInto`), or of a range
 * of a byte array (`hashRangeInto`): the hash every bloomkit filter derives its positions from (FORMAT.md §5).
 */
export { hashInto, hashRangeInto } from './murmur3.js';
/** MurmurHash3 x86_128 of bytes given in pieces, with the same result as hashing them joined. */
export { Murmur3Stream } from './murmur3-stream.js';
/** The options a bit kind's constructor takes (m, k, seed) and the state `deserialize` and `union` hand it. */
export type { FilterShapeOptions, FilterState } from './shape.js';
/**
 * Argument checks that throw an InvalidArgumentError naming the parameter and its allowed range: integers, one of
 * a list, open intervals, one hashed key, a batch of hashes, a list of keys, a clock, storage not detached.
 */
export {
  checkAttached,
  checkClock,
  checkHashAt,
  checkHashBatch,
  checkInteger,
  checkOneOf,
  checkOpenInterval,
  keyList,
} from './validate.js';
