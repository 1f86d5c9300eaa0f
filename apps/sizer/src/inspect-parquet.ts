import { openParquetFilters } from '@bloomkit/parquet';
import { bytes, grouped, rate } from './numbers.js';
import { type Row, row } from './rows.js';

/** True for the bytes of a Parquet file: its magic `PAR1` at both ends. */
export function isParquetFile(file: Uint8Array): boolean {
  const magic = [0x50, 0x41, 0x52, 0x31];
  const n = file.length;
  return n >= 12 && magic.every((byte, i) => file[i] === byte && file[n - 4 + i] === byte);
}

/**
 * The split-block filters of a Parquet file, as `bloomkit info FILE` (and `bloomkit parquet FILE`) list them: its
 * row groups, then a row for each column chunk with a filter (`openParquetFilters` of `@bloomkit/parquet`, the
 * footer read with hyparquet): the column's type, the bitset's size, its fill, the distinct values it estimates and
 * the rate it answers with now. A file that is not Parquet, or a filter of another algorithm, is its FormatError.
 */
export async function inspectParquet(name: string, file: Uint8Array): Promise<Row[]> {
  const filters = await openParquetFilters(file);
  const rows: Row[] = [
    row('file', 'file', name),
    row('kind', 'kind', 'parquet-file', 'a Parquet file'),
    row('rowGroups', 'row groups', filters.rowGroups, grouped(filters.rowGroups)),
    row(
      'chunks',
      'column chunks with a split-block filter',
      filters.chunks.length,
      grouped(filters.chunks.length),
    ),
  ];
  for (const chunk of filters.chunks) {
    const filter = (await filters.filter(chunk.rowGroup, chunk.column))!;
    const fill = filter.fillRatio();
    rows.push(
      row(
        `chunk:${chunk.rowGroup}:${chunk.column}`,
        `row group ${chunk.rowGroup}, ${chunk.column}`,
        filter.blocks * 32,
        `${chunk.type}, ${bytes(filter.blocks * 32)}, fill ${(100 * fill).toFixed(2)}%, about ${grouped(Math.round(filter.estimatedCount()))} distinct, rate now ${rate(filter.expectedFpr())}`,
      ),
    );
  }
  return rows;
}
