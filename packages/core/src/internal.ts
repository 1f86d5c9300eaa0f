// `@bloomkit/core/internal`: what the bloomkit packages build on, and nothing an application needs. Each export
// says what it is and who uses it. It has no semver of its own: every bloomkit package is released in one fixed
// version group and depends on the others at exact versions, so a package always meets the core it was built with
// (CONTRIBUTING.md, "@bloomkit/core/internal"). One export per module, in path order.

/**
 * Keys hashed a batch at a time (in WebAssembly where it loads): `hashBatch` hashes keys of a checked list and says
 * how many, `hashLineBatch` the same of the lines of a buffer (found where they lie; `batchLineEnds` says where
 * each ends), `batchHashes` is the array their h1..h4 are in.
 * Scalable and window `addAll`/`hasMany`; the CLI's `dedup` (lines in its read buffer).
 */
export { batchHashes, batchLineEnds, hashBatch, hashLineBatch } from './batch-hash.js';
/** m bits over pages (2^48 bits at most): a fresh zeroed array or a view of given bytes. Kinds, Redis. */
export { BitArray } from './bit-array.js';
/** The shared base of the bit kinds (standard, partitioned, blocked): a kind is its record; statics build it. */
export { BitFilter } from './bit-filter.js';
/**
 * The codec of kinds that nest envelopes (docs/FORMAT.md §3.4, §3.5): a kind's outer envelope (`decodeChain`),
 * a chain's payload split into its sub-filters' files (`splitChain`), a range of a payload as views
 * (`payloadRange`), a chain or any nesting file written as parts (`encodeChainParts`, `encodeNestedParts`), and
 * parts joined into one array for `serialize` (`joinParts`). Scalable, exceptions.
 */
export {
  decodeChain,
  encodeChainParts,
  encodeNestedParts,
  joinParts,
  payloadRange,
  splitChain,
} from './chain-codec.js';
/** CRC-32C (Castagnoli), the envelope's checksum. Tests that forge files. */
export { crc32c } from './checksum.js';
/** Counters: the widths a store takes (4, 8, 16), their type, and the store. Counting, Redis. */
export { COUNTER_BITS, CounterArray, type CounterBits } from './counter-array.js';
/** add, has, union, … over any layout and store: what a single kind with its own store extends. Counting. */
export { BloomEngine } from './engine.js';
/**
 * Options of the public APIs, checked with typed errors: `checkAllocation` refuses a store past `maxBytes` before
 * it is allocated; `readOptions`, `readDeserializeOptions` and `resolveSeed` (which draws 'random'). Kinds, Redis.
 */
export { checkAllocation, readDeserializeOptions, readOptions, resolveSeed } from './filter.js';
/**
 * `getUint64`/`setUint64`: u64 fields of a params block, exact up to 2^53 − 1 and refused past it;
 * `MIN_ENVELOPE_BYTES`, the smallest envelope, for a chain's bound on its sub-filter count. Scalable.
 */
export { getUint64, MIN_ENVELOPE_BYTES, setUint64 } from './format.js';
/** The JSON form (`{ format, version, kind, base64 }`) from and to a file's bytes. Counting, scalable. */
export { fromFilterJson, toFilterJson } from './json.js';
/**
 * A key's MurmurHash3 x86_128 into four int32 words, the key checked (kinds that hash outside the engine), and the
 * same of a key's bytes where they lie in a larger buffer (the CLI's lines, hashed in the read buffer).
 */
export { hashInto, hashRangeInto } from './murmur3.js';
/** MurmurHash3 x86_128 of a key given in pieces, equal to the hash of the whole. The CLI's long lines. */
export { Murmur3Stream } from './murmur3-stream.js';
/**
 * The counter store of a new counting filter: from 256 KiB of counters, in a WebAssembly memory where
 * the batch kernel works on them. Counting.
 */
export { newCounterArray } from './new-counter-array.js';
/** A constructor's shape options and state (storage, counts), and how they are planned and checked. Counting. */
export {
  type FilterShapeOptions,
  type FilterState,
  planShape,
  type ResolvedShape,
  resolveShape,
  resolveState,
} from './shape.js';
/** Reads a single-filter file (docs/FORMAT.md §3.1–3.3) of a kind into its shape and state. Counting. */
export { decodeSingleFilter } from './single-filter-codec.js';
/**
 * Checks an integer, one of a list, a number in an open interval, a list of keys, a clock option (whose readings
 * it then checks), the arguments of a batch of hashed keys; typed errors. Kinds, Redis.
 */
export {
  checkClock,
  checkHashBatch,
  checkInteger,
  checkOneOf,
  checkOpenInterval,
  keyList,
} from './validate.js';
/**
 * `byteLength` bytes (zeros or a copy) in a WebAssembly memory of their own, where a batch kernel can work on them,
 * from 256 KiB where WebAssembly loads; else a plain array. Window.
 */
export { newKernelBytes } from './wasm/kernel-memory.js';
/** The window filter's batch kernel over a ring's bits in such a memory. Window. */
export { type WindowKernel, windowKernel } from './wasm/window-instance.js';
/**
 * XXH64 (seed 0) of a value's bytes or a string's UTF-8, through the kernel where WebAssembly loads (with its batch
 * window) and in JavaScript elsewhere; the Parquet split-block kind.
 */
export { xxh64Hasher } from './wasm/xxh64-instance.js';
