// The public surface of @bloomkit/core: hashing, positions, layouts and parameter math, the key type, errors, and
// reading any file's header. The parts a filter is made of, for private kinds, are in './kit.ts'
// (`@bloomkit/core/kit`); the engine and codecs the sibling packages alone build on, in './internal.ts'
// (`@bloomkit/core/internal`).
export {
  BloomError,
  ChecksumMismatchError,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  UnsupportedVersionError,
} from './errors.js';
export {
  type BloomFilter,
  DEFAULT_MAX_BYTES,
  DEFAULT_SEED,
  type DeserializeOptions,
  type FilterFact,
  fact,
  type SeedOption,
} from './filter.js';
export { FORMAT_VERSION, HEADER_BYTES } from './format.js';
export { type FilterHeader, readFileHeader, readHeader } from './header.js';
export { type FilterJson, MAX_JSON_FILE_BYTES } from './json.js';
export type { Key } from './key.js';
export type { KindRecord } from './kinds.js';
export type { Layout } from './layout.js';
export { blockedLayout, MAX_BLOCKED_BITS } from './layouts/blocked.js';
export { partitionedLayout } from './layouts/partitioned.js';
export { standardLayout } from './layouts/standard.js';
export { type Hash128, murmur3x86_128, murmur3x86_128Into } from './murmur3.js';
export {
  BLOCK_BITS,
  blockedFalsePositiveRate,
  falsePositiveRate,
  MAX_HASHES,
  optimalBits,
  optimalHashes,
  partitionedFalsePositiveRate,
} from './params.js';
export type { ByteSource } from './parts.js';
export { derivePositions, type Geometry, MAX_BITS } from './positions.js';
export { capacityFor, chooseShape, type FilterShape } from './sizing.js';
export { type ShapeQuestion, type SolvedShape, solveShape } from './solve-shape.js';
export { MAX_CLOCK_MS } from './validate.js';
