import type { PhysicalType } from './physical-type.js';

/** Options of {@link SplitBlockBloomFilter.create}. */
export interface SplitBlockCreateOptions {
  /** The column's physical type, which says how a value is hashed (default BYTE_ARRAY: strings and bytes). */
  readonly type?: PhysicalType;
  /**
   * How the bitset is sized: `'rate'` (default), the smallest power of two whose exact rate at `capacity` values is
   * at most `fpr`; `'parquet'`, the size parquet-java, arrow-rs and DuckDB choose for `capacity` distinct values at
   * `fpr` ({@link parquetBitsetBytes}), so a filter built here is the writers' filter byte for byte.
   */
  readonly sizing?: 'rate' | 'parquet' | undefined;
  /** The seed is XXH64's 0, the only one Parquet readers use; any other (and 'random') is refused. */
  readonly seed?: number | 'random';
  /** The most bytes the bitset may take (default 4 GiB, above the 128 MiB Parquet allows). */
  readonly maxBytes?: number | undefined;
}

/** Options of {@link SplitBlockBloomFilter.fromParquet}: the column's type, and whether to copy the bitset. */
export interface FromParquetOptions {
  /** The column's physical type, from the file's schema (default BYTE_ARRAY). */
  readonly type?: PhysicalType | undefined;
  /** Copy the bitset (default true); false works on the input's bytes where they are 4-byte aligned. */
  readonly copy?: boolean | undefined;
}
