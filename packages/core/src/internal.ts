// `@bloomkit/core/internal`: what the bloomkit packages build on, and nothing an application needs. Each name
// says who uses it. It has no semver of its own: every bloomkit package is released in one fixed version group and
// depends on the others at exact versions, so a package always meets the core it was built with
// (CONTRIBUTING.md, "@bloomkit/core/internal").

// Storage. Kind packages, and @bloomkit/redis to view bytes it read as a filter's storage.
/** m bits over pages (2^48 bits at most); views of given bytes or a fresh zeroed array. */
export { BitArray } from './bit-array.js';
// The engine. Kind packages.
/** The shared base of the bit kinds: a class per kind is its record; statics build the subclass. */
export { BitFilter } from './bit-filter.js';
/** CRC-32C (Castagnoli) of bytes, as the envelope's checksum. Tests that forge files. */
export { crc32c } from './checksum.js';
/** The counter widths a counting store takes (4, 8, 16), its type, and the store. Counting, Redis. */
export { COUNTER_BITS, CounterArray, type CounterBits } from './counter-array.js';
/** add/has/union/… over any layout and store: what a single kind extends (counting). */
export { BloomEngine } from './engine.js';
// Arguments and options: the typed errors every package's API gives for bad input.
/** Refuses a store larger than `maxBytes` before allocating it. Scalable. */
/** Checks an options object, the deserialize options, and a seed option ('random' drawn). */
export { checkAllocation, readDeserializeOptions, readOptions, resolveSeed } from './filter.js';
/** The envelope (§1): read and check one, write one as parts; the smallest envelope's size. Scalable. */
/** u64 fields of a params block, exact up to 2^53 − 1 and refused past it. Scalable's params. */
export { decodeEnvelope, encodeEnvelopeParts, getUint64, MIN_ENVELOPE_BYTES, setUint64 } from './format.js';
/** The JSON form (`{ format, version, kind, base64 }`) to and from the file's bytes. Counting, scalable. */
export { fromFilterJson, toFilterJson } from './json.js';
// Hashing. Kinds that hash outside the engine.
/** A key's MurmurHash3 x86_128 into four int32 words, checking the key (scalable, counting). */
export { hashInto } from './murmur3.js';
/** MurmurHash3 x86_128 of a key given in pieces, the same hash as of the whole (the CLI's long lines). */
export { Murmur3Stream } from './murmur3-stream.js';
/** Bytes as parts: the total length, a range of them as parts, a range gathered into one array. Scalable. */
export { gatherBytes, lengthOf, sliceParts } from './parts.js';
/** Shape options of a constructor, its state (storage, counts), and how create plans and checks them. */
export {
  type FilterShapeOptions,
  type FilterState,
  planShape,
  type ResolvedShape,
  resolveShape,
  resolveState,
} from './shape.js';
// The format. Kind packages' codecs (the scalable chain reads and writes nested envelopes).
/** Reads a single-filter file (docs/FORMAT.md §3.1–3.3) for a kind: its shape and state. Counting. */
/** Refuses a file past one typed array (4 GiB on Node 20), pointing to serializeParts. Scalable. */
export { checkOneArray, decodeSingleFilter } from './single-filter-codec.js';
/** An integer, one of a list, a number in an open interval, a list of keys: checked, or an InvalidArgumentError. */
export { checkInteger, checkOneOf, checkOpenInterval, keyList } from './validate.js';
