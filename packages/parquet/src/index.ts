export {
  type ColumnChunkFilter,
  openParquetFilters,
  type ParquetColumn,
  type ParquetFilters,
  type ParquetLogicalType,
  type ParquetSource,
  type RowGroupAnswer,
} from './parquet-file.js';
export { type ParquetBloomHeader, readParquetBloomHeader } from './parquet-header.js';
export { type ParquetValue, PHYSICAL_TYPES, type PhysicalType } from './physical-type.js';
export {
  MAX_BITSET_BYTES,
  MIN_BITSET_BYTES,
  parquetBitsetBytes,
  splitBlockBitsetBytes,
  splitBlockFalsePositiveRate,
  splitBlockLayout,
} from './sizing.js';
export { SplitBlockBloomFilter } from './split-block-bloom-filter.js';
export { splitBlockKind } from './split-block-codec.js';
export type { FromParquetOptions, SplitBlockCreateOptions } from './split-block-options.js';
export { valueFromText } from './text-values.js';
export { xxh64 } from './xxh64.js';
