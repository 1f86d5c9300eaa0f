import { FormatError, InvalidArgumentError } from '@bloomkit/core';
import type { AsyncBuffer, FileMetaData, SchemaElement } from 'hyparquet';
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

/**
 * The logical types that change how a value of a column is written as text and which physical value a writer
 * hashed for it (apache/parquet-format LogicalTypes.md); the rest read as their physical type.
 */
export type ParquetLogicalType =
  | 'STRING'
  | 'JSON'
  | 'ENUM'
  | 'BSON'
  | 'UUID'
  | 'DECIMAL'
  | 'FLOAT16'
  | 'DATE'
  | 'TIME_MILLIS'
  | 'TIME_MICROS'
  | 'TIME_NANOS'
  | 'TIMESTAMP_MILLIS'
  | 'TIMESTAMP_MICROS'
  | 'TIMESTAMP_NANOS'
  | 'INT8'
  | 'INT16'
  | 'UINT8'
  | 'UINT16'
  | 'UINT32'
  | 'UINT64'
  | 'INTERVAL';

/** A leaf column of the file's schema: what its values are and how they are written as text. */
export interface ParquetColumn {
  /** The column's path in the schema, joined by dots. */
  readonly name: string;
  /** Its physical type: how its values are hashed. */
  readonly type: PhysicalType;
  /**
   * Its logical type where the schema gives one that changes how a value reads (from `logical_type`, else the
   * older `converted_type`): DATE is INT32 days since 1970-01-01, TIME_* and TIMESTAMP_* units since midnight or
   * the epoch, DECIMAL an unscaled integer, UUID 16 bytes, UINT* an unsigned integer in a signed physical type;
   * undefined otherwise.
   */
  readonly logicalType: ParquetLogicalType | undefined;
  /** DECIMAL: the digits after the point. */
  readonly scale?: number | undefined;
  /** DECIMAL: the digits in all; a value needs fewer than 10^precision as its unscaled integer. */
  readonly precision?: number | undefined;
  /** FIXED_LEN_BYTE_ARRAY: the bytes of every value. */
  readonly length?: number | undefined;
  /** TIME and TIMESTAMP: whether values are UTC instants (`isAdjustedToUTC`), so a UTC offset in a text counts. */
  readonly utc?: boolean | undefined;
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
  // Found by row group and column in one step (a file may have hundreds of thousands of row groups).
  const byPlace = new Map(chunks.map((chunk) => [`${chunk.rowGroup}\0${chunk.column}`, chunk]));
  const find = (rowGroup: number, column: string) => byPlace.get(`${rowGroup}\0${column}`);
  // One read and one filter per distinct byte range: chunks that name the same bytes share them, and the ranges
  // read add up to at most the file (ranges that overlap are not a file any writer makes).
  const read = new Map<string, Promise<SplitBlockBloomFilter>>();
  let bytesRead = 0;
  const filterOf = (chunk: ColumnChunkFilter): Promise<SplitBlockBloomFilter> => {
    const range = `${chunk.offset}:${chunk.length ?? ''}:${chunk.type}`;
    let filter = read.get(range);
    if (filter === undefined) {
      filter = readChunkFilter(file, chunk, (bytes) => {
        bytesRead += bytes;
        if (bytesRead > file.byteLength) {
          throw new FormatError(
            `${where}: the filters' byte ranges add up to more than the file's ${file.byteLength} bytes: they overlap (row group ${chunk.rowGroup} column ${chunk.column})`,
          );
        }
      });
      read.set(range, filter);
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
      if (length !== undefined && (!Number.isSafeInteger(length) || length < 1)) {
        throw new FormatError(
          `${where}: row group ${rowGroup}'s bloom_filter_length is ${length}; a filter's header and bitset take at least 1 byte`,
        );
      }
      if (length !== undefined && length > fileBytes - offset) {
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
    const { logicalType, utc } = logicalTypeOf(element);
    return {
      name: names?.[i] ?? element.name,
      type: element.type as PhysicalType,
      logicalType,
      ...(logicalType === 'DECIMAL'
        ? {
            scale: decimalPart(element, 'scale') ?? 0,
            precision: decimalPart(element, 'precision'),
          }
        : {}),
      ...(element.type === 'FIXED_LEN_BYTE_ARRAY' ? { length: element.type_length } : {}),
      ...(utc === undefined ? {} : { utc }),
    };
  });
}

const CONVERTED: Readonly<Record<string, ParquetLogicalType>> = {
  UTF8: 'STRING',
  JSON: 'JSON',
  ENUM: 'ENUM',
  BSON: 'BSON',
  DECIMAL: 'DECIMAL',
  DATE: 'DATE',
  TIME_MILLIS: 'TIME_MILLIS',
  TIME_MICROS: 'TIME_MICROS',
  TIMESTAMP_MILLIS: 'TIMESTAMP_MILLIS',
  TIMESTAMP_MICROS: 'TIMESTAMP_MICROS',
  INT_8: 'INT8',
  INT_16: 'INT16',
  UINT_8: 'UINT8',
  UINT_16: 'UINT16',
  UINT_32: 'UINT32',
  UINT_64: 'UINT64',
  INTERVAL: 'INTERVAL',
};

/**
 * A schema element's logical type: `logical_type` where the writer gave one, else `converted_type` (whose TIME and
 * TIMESTAMP are UTC-adjusted, LogicalTypes.md "Backward compatibility").
 */
function logicalTypeOf(element: SchemaElement): {
  logicalType: ParquetLogicalType | undefined;
  utc?: boolean;
} {
  const logical = element.logical_type;
  switch (logical?.type) {
    case 'STRING':
    case 'JSON':
    case 'ENUM':
    case 'BSON':
    case 'UUID':
    case 'DECIMAL':
    case 'FLOAT16':
    case 'DATE':
    case 'INTERVAL':
      return { logicalType: logical.type };
    case 'TIME':
    case 'TIMESTAMP':
      return { logicalType: `${logical.type}_${logical.unit}`, utc: logical.isAdjustedToUTC };
    case 'INTEGER':
      if (logical.bitWidth === 64 || (logical.bitWidth === 32 && logical.isSigned))
        return { logicalType: undefined };
      return { logicalType: `${logical.isSigned ? '' : 'U'}INT${logical.bitWidth}` as ParquetLogicalType };
  }
  const converted = element.converted_type === undefined ? undefined : CONVERTED[element.converted_type];
  if (converted?.startsWith('TIME')) return { logicalType: converted, utc: true };
  return { logicalType: converted };
}

/** DECIMAL's scale or precision: the logical type's, else the element's own field (converted_type DECIMAL). */
function decimalPart(element: SchemaElement, part: 'scale' | 'precision'): number | undefined {
  const logical = element.logical_type;
  return logical?.type === 'DECIMAL' ? logical[part] : element[part];
}

/**
 * Reads one column chunk's filter: header and bitset, checked. `reading` is told the bytes of the filter before they
 * are read (it may refuse them).
 */
async function readChunkFilter(
  file: AsyncBuffer,
  chunk: ColumnChunkFilter,
  reading: (bytes: number) => void,
): Promise<SplitBlockBloomFilter> {
  const where = `openParquetFilters: row group ${chunk.rowGroup} column ${chunk.column}`;
  let bytes: Uint8Array;
  if (chunk.length !== undefined) {
    reading(chunk.length);
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
    reading(header.headerLength + header.numBytes);
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
