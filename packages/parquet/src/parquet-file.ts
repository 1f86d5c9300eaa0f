import { FormatError, InvalidArgumentError } from '@bloomkit/core';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { readParquetBloomHeader } from './parquet-header.js';
import { type ParquetValue, PHYSICAL_TYPES, type PhysicalType } from './physical-type.js';
import { SplitBlockBloomFilter } from './split-block-bloom-filter.js';
import { checkValue } from './value-hashing.js';

/**
 * A Parquet file as this reads it: its bytes, or a reader of byte ranges (hyparquet's `AsyncBuffer`: a
 * `byteLength` and `slice(start, end)` giving an ArrayBuffer or a promise of one) for large and remote files — a
 * file read with `fs.read` at offsets, or HTTP range requests. Only the footer and the filters are read.
 */
export type ParquetSource = Uint8Array | ArrayBuffer | AsyncBuffer;

/** A column chunk that carries a split-block filter. */
export interface ColumnChunkFilter {
  /** The row group's index. */
  readonly rowGroup: number;
  /** The column's path in the schema, joined by dots. */
  readonly column: string;
  /** The column's physical type: how its values are hashed. */
  readonly type: PhysicalType;
  /** Where the filter's header begins in the file. */
  readonly offset: number;
  /** The header's and bitset's bytes, when the file says (`bloom_filter_length`); else read in two steps. */
  readonly length: number | undefined;
}

/** A leaf column of the file's schema: what its values are and how they are written as text. */
export interface ParquetColumn {
  /** The column's path in the schema, joined by dots. */
  readonly name: string;
  /** Its physical type: how its values are hashed. */
  readonly type: PhysicalType;
  /**
   * Its logical type where the schema gives one that changes how a value reads: `DATE` (INT32 days since
   * 1970-01-01), `TIMESTAMP_MILLIS`, `TIMESTAMP_MICROS` or `TIMESTAMP_NANOS` (INT64 units since the epoch),
   * `STRING` (UTF-8 text); undefined otherwise.
   */
  readonly logicalType:
    | 'DATE'
    | 'TIMESTAMP_MILLIS'
    | 'TIMESTAMP_MICROS'
    | 'TIMESTAMP_NANOS'
    | 'STRING'
    | undefined;
}

/** One row group's answer for a value. */
export interface RowGroupAnswer {
  /** The row group's index. */
  readonly rowGroup: number;
  /** `absent`: the filter proves the row group holds no such value; `maybe`: it may; `no-filter`: nothing to ask. */
  readonly answer: 'absent' | 'maybe' | 'no-filter';
}

/** The filters of one Parquet file, read on demand. */
export interface ParquetFilters {
  /** The file's row groups. */
  readonly rowGroups: number;
  /** The file's leaf columns, in schema order. */
  readonly columns: readonly ParquetColumn[];
  /** Every column chunk with a filter, by row group then column. */
  readonly chunks: readonly ColumnChunkFilter[];
  /** The filter of a column chunk (read with one range read, then kept), or undefined when it has none. */
  filter(rowGroup: number, column: string): Promise<SplitBlockBloomFilter | undefined>;
  /** For each row group in order, whether it may hold `value` in `column` (a value of another type is refused). */
  mayContain(column: string, value: ParquetValue): Promise<RowGroupAnswer[]>;
}

/** The most bytes a filter's header may take when the file gives no length (a real one is 15–20). */
const HEADER_READ_BYTES = 64;

/**
 * Opens a Parquet file's split-block filters: reads its footer with hyparquet's `parquetMetadataAsync` (no native
 * code) and lists the column chunks whose metadata has a `bloom_filter_offset`. Each filter is read when first
 * asked for: one range read of `bloom_filter_length` bytes, or (when a writer left it out) the header's first
 * bytes and then the bitset, each checked against the file's size before it is read. Anything that is not a
 * Parquet file, or a filter that is not BLOCK / XXHASH / UNCOMPRESSED, is a FormatError. A caller that parsed the
 * footer already (with hyparquet) passes it as `options.metadata`, and only the filters are read.
 */
export async function openParquetFilters(
  source: ParquetSource,
  options?: { readonly metadata?: FileMetaData | undefined },
): Promise<ParquetFilters> {
  const where = 'openParquetFilters';
  const file = asyncBufferOf(where, source);
  let metadata: FileMetaData;
  try {
    // hyparquet is loaded on first use: the filter alone (and the table of kinds, which lists it) never loads it.
    metadata = options?.metadata ?? (await (await import('hyparquet')).parquetMetadataAsync(file));
  } catch (error) {
    throw new FormatError(`${where}: not a readable Parquet file (${(error as Error).message})`);
  }
  const chunks = chunkFilters(where, metadata, file.byteLength);
  const read = new Map<ColumnChunkFilter, Promise<SplitBlockBloomFilter>>();
  const find = (rowGroup: number, column: string) =>
    chunks.find((chunk) => chunk.rowGroup === rowGroup && chunk.column === column);
  const filterOf = (chunk: ColumnChunkFilter): Promise<SplitBlockBloomFilter> => {
    let filter = read.get(chunk);
    if (filter === undefined) {
      filter = readChunkFilter(file, chunk);
      read.set(chunk, filter);
    }
    return filter;
  };
  // Each column's physical type, so a value of another type is refused even where no chunk has a filter.
  const columns = columnsOf(metadata);
  const typeOf = new Map(columns.map((column) => [column.name, column.type]));
  return {
    rowGroups: metadata.row_groups.length,
    columns,
    chunks,
    async filter(rowGroup, column) {
      const chunk = find(rowGroup, column);
      return chunk === undefined ? undefined : filterOf(chunk);
    },
    async mayContain(column, value) {
      const type = typeOf.get(column);
      if (type === undefined) {
        throw new InvalidArgumentError(
          `mayContain: the file has no column ${JSON.stringify(column)} (it has ${[...typeOf.keys()].join(', ')})`,
        );
      }
      checkValue(`mayContain: column ${column}`, type, value);
      const answers: RowGroupAnswer[] = [];
      for (let rowGroup = 0; rowGroup < metadata.row_groups.length; rowGroup++) {
        const chunk = find(rowGroup, column);
        if (chunk === undefined) answers.push({ rowGroup, answer: 'no-filter' });
        else answers.push({ rowGroup, answer: (await filterOf(chunk)).has(value) ? 'maybe' : 'absent' });
      }
      return answers;
    },
  };
}

/**
 * The column chunks with a filter, their offsets and lengths checked against the file's `fileBytes` (a
 * FormatError when they lie outside it); chunks of a type this package does not hash (INT96, or one outside
 * PHYSICAL_TYPES) are left out.
 */
function chunkFilters(where: string, metadata: FileMetaData, fileBytes: number): ColumnChunkFilter[] {
  const chunks: ColumnChunkFilter[] = [];
  metadata.row_groups.forEach((group, rowGroup) => {
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (meta?.bloom_filter_offset === undefined) continue;
      const offset = Number(meta.bloom_filter_offset);
      const length = meta.bloom_filter_length;
      if (!Number.isSafeInteger(offset) || offset < 0 || offset >= fileBytes) {
        throw new FormatError(
          `${where}: row group ${rowGroup}'s bloom_filter_offset ${offset} lies outside the file`,
        );
      }
      if (
        length !== undefined &&
        (!Number.isSafeInteger(length) || length < 1 || length > fileBytes - offset)
      ) {
        throw new FormatError(
          `${where}: row group ${rowGroup}'s bloom_filter_length ${length} runs past the file`,
        );
      }
      if (!PHYSICAL_TYPES.includes(meta.type as PhysicalType) || meta.type === 'INT96') continue;
      chunks.push({
        rowGroup,
        column: meta.path_in_schema.join('.'),
        type: meta.type as PhysicalType,
        offset,
        length,
      });
    }
  });
  return chunks;
}

/** The leaf columns of the schema (the elements with a physical type), with the logical types that read differently. */
function columnsOf(metadata: FileMetaData): ParquetColumn[] {
  const leaves = metadata.schema.filter((element) => element.type !== undefined);
  const names = metadata.row_groups[0]?.columns.map((chunk) => chunk.meta_data?.path_in_schema.join('.'));
  return leaves.map((element, i) => {
    const logical = element.logical_type as { type?: string; unit?: string } | undefined;
    const converted = element.converted_type as string | undefined;
    let logicalType: ParquetColumn['logicalType'];
    if (logical?.type === 'DATE' || converted === 'DATE') logicalType = 'DATE';
    else if (logical?.type === 'TIMESTAMP' && ['MILLIS', 'MICROS', 'NANOS'].includes(String(logical.unit))) {
      logicalType = `TIMESTAMP_${logical.unit}` as ParquetColumn['logicalType'];
    } else if (converted === 'TIMESTAMP_MILLIS' || converted === 'TIMESTAMP_MICROS') logicalType = converted;
    else if (logical?.type === 'STRING' || converted === 'UTF8') logicalType = 'STRING';
    return { name: names?.[i] ?? element.name, type: element.type as PhysicalType, logicalType };
  });
}

/** Reads one column chunk's filter: header and bitset, checked. */
async function readChunkFilter(file: AsyncBuffer, chunk: ColumnChunkFilter): Promise<SplitBlockBloomFilter> {
  const where = `openParquetFilters: row group ${chunk.rowGroup} column ${chunk.column}`;
  let bytes: Uint8Array;
  if (chunk.length !== undefined) {
    bytes = new Uint8Array(await file.slice(chunk.offset, chunk.offset + chunk.length));
    const { numBytes, headerLength } = readParquetBloomHeader(bytes, 0, where);
    if (headerLength + numBytes !== bytes.length) {
      throw new FormatError(
        `${where}: bloom_filter_length is ${bytes.length}, the header and bitset are ${headerLength + numBytes}`,
      );
    }
  } else {
    const head = new Uint8Array(
      await file.slice(chunk.offset, Math.min(file.byteLength, chunk.offset + HEADER_READ_BYTES)),
    );
    // The header is checked against the file's real size: a numBytes past its end is refused before the read.
    const header = readParquetBloomHeader(head, 0, where, file.byteLength - chunk.offset);
    bytes = new Uint8Array(
      await file.slice(chunk.offset, chunk.offset + header.headerLength + header.numBytes),
    );
  }
  return SplitBlockBloomFilter.fromParquet(bytes, { type: chunk.type });
}

/** A source as hyparquet's AsyncBuffer. */
function asyncBufferOf(where: string, source: ParquetSource): AsyncBuffer {
  if (source instanceof Uint8Array) {
    // Uint8Array's own slice (a copy of just the range), also for a Node Buffer, whose slice is a view.
    return {
      byteLength: source.length,
      slice: (start, end) => Uint8Array.prototype.slice.call(source, start, end).buffer as ArrayBuffer,
    };
  }
  if (source instanceof ArrayBuffer) return source;
  if (
    source !== null &&
    typeof source === 'object' &&
    Number.isSafeInteger(source.byteLength) &&
    typeof source.slice === 'function'
  ) {
    return source;
  }
  throw new InvalidArgumentError(
    `${where}: source must be a Uint8Array, an ArrayBuffer or an AsyncBuffer (byteLength and slice)`,
  );
}
