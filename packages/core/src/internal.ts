// `@bloomkit/core/internal`: the engine and plumbing the bloomkit filter packages are built from. Not for
// applications; it follows the filter packages' versions, not semver of its own.
export { BitArray, popcount32, type StorageOptions } from './bit-array.js';
export { BitFilter, type BitFilterClass } from './bit-filter.js';
export { crc32c } from './checksum.js';
export { COUNTER_BITS, CounterArray, type CounterBits } from './counter-array.js';
export { BloomEngine } from './engine.js';
export { checkAllocation, readDeserializeOptions, readFlag, readOptions, resolveSeed } from './filter.js';
export {
  decodeFilterParams,
  encodeFilterParams,
  FILTER_PARAMS_BYTES,
  type FilterParams,
} from './filter-params.js';
export {
  CHECKSUM_BYTES,
  type DecodeOptions,
  decodeEnvelope,
  type Envelope,
  type EnvelopeSpec,
  encodeEnvelope,
  encodeEnvelopeParts,
  envelopeLength,
  getUint64,
  HEADER_BYTES,
  MIN_ENVELOPE_BYTES,
  setUint64,
  writeEnvelope,
} from './format.js';
export { decodeBase64, encodeBase64, fromFilterJson, toFilterJson } from './json.js';
export { assertKey, describe } from './key.js';
export { hashInto } from './murmur3.js';
export { Murmur3Stream } from './murmur3-stream.js';
export { type ByteSource, gatherBytes, lengthOf, sliceParts, toParts } from './parts.js';
export {
  type FilterShapeOptions,
  type FilterState,
  planShape,
  type ResolvedShape,
  type ResolvedState,
  resolveShape,
  resolveState,
} from './shape.js';
export {
  checkOneArray,
  type DecodedSingleFilter,
  decodeSingleFilter,
  encodeSingleFilter,
} from './single-filter-codec.js';
export type { FilterStore } from './storage.js';
export { checkInteger, checkOneOf, checkOpenInterval, keyList } from './validate.js';
