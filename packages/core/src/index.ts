export { BitArray, popcount32, type StorageOptions } from './bit-array.js';
export { BitFilter, readBitFilter } from './bit-filter.js';
export { crc32c } from './checksum.js';
export { COUNTER_BITS, CounterArray, type CounterBits } from './counter-array.js';
export {
  BloomError,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  UnsupportedVersionError,
} from './errors.js';
export {
  type BloomFilter,
  DEFAULT_SEED,
  type DeserializeOptions,
  resolveSeed,
  type SeedOption,
} from './filter.js';
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
  envelopeLength,
  FilterKind,
  FORMAT_VERSION,
  getUint64,
  HashAlgorithm,
  HEADER_BYTES,
  KIND_NAMES,
  MAGIC,
  MIN_ENVELOPE_BYTES,
  setUint64,
  writeEnvelope,
} from './format.js';
export {
  type FilterKindInfo,
  type FilterShapeOptions,
  type FilterState,
  HashedFilter,
  planShape,
  type ResolvedShape,
  readFilterEnvelope,
  resolveShape,
} from './hashed-filter.js';
export { assertKey, type Key } from './key.js';
export { KeyLocator } from './key-locator.js';
export { type Hash128, murmur3x86_128, murmur3x86_128Into } from './murmur3.js';
export {
  capacityFor,
  chooseShape,
  estimateCount,
  type FilterShape,
  falsePositiveRate,
  type Layout,
  layoutFalsePositiveRate,
  MAX_HASHES,
  optimalBits,
  optimalHashes,
  partitionedFalsePositiveRate,
} from './params.js';
export { derivePartitionedPositions, derivePositions, MAX_BITS } from './positions.js';
export type { FilterStorage } from './storage.js';
export { checkInteger, checkKeyArray, checkKeyIterable, checkOneOf, checkOpenInterval } from './validate.js';
