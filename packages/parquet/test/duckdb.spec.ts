import { readFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openParquetFilters,
  type ParquetFilters,
  parquetBitsetBytes,
  SplitBlockBloomFilter,
} from '../src/index.js';
import { COLUMNS, duckdbExcludes, duckdbFile } from './support/duckdb-files.js';

/** Probe values per column, half present. */
const PROBES = 10_000;

describe('filters DuckDB wrote (@duckdb/node-api, COPY … TO … (FORMAT parquet))', () => {
  let connection: DuckDBConnection;
  let path: string;
  let dispose: (() => void) | undefined;
  let filters: ParquetFilters;

  beforeAll(async () => {
    ({ connection, path, dispose } = await duckdbFile());
    filters = await openParquetFilters(readFileSync(path));
  });
  afterAll(() => dispose?.());

  it('lists a filter for every column chunk, with its physical type', () => {
    expect(filters.rowGroups).toBe(4);
    expect(filters.chunks.map((chunk) => `${chunk.rowGroup} ${chunk.column} ${chunk.type}`)).toEqual(
      [0, 1, 2, 3].flatMap((group) =>
        ['s BYTE_ARRAY', 'n INT32', 'b INT64', 'd DOUBLE', 'dt INT32', 'ts INT64'].map(
          (c) => `${group} ${c}`,
        ),
      ),
    );
    for (const chunk of filters.chunks) expect(chunk.length).toBeGreaterThan(32);
  });

  // Each column's probes in two halves, so no test holds its worker much past 10 s.
  for (const [column, half] of COLUMNS.flatMap((c) => [[c, 0] as const, [c, 1] as const])) {
    it(`${column.name} (${half === 0 ? 'first' : 'second'} half): every row group answers as parquet_bloom_probe does for ${PROBES / 2} values, half present, and never misses one`, async () => {
      let absentAnswers = 0;
      for (let p = (half * PROBES) / 2; p < ((half + 1) * PROBES) / 2; p++) {
        // Present values spread over the column's distinct values; absent ones above them.
        const i = p % 2 === 0 ? (p * 7919) % column.distinct : column.distinct + p;
        const ours = await filters.mayContain(column.name, column.value(i));
        const theirs = await duckdbExcludes(connection, path, column.name, column.literal(i));
        expect(
          ours.map((row) => row.answer === 'absent'),
          `${column.name} value ${i}`,
        ).toEqual(theirs);
        if (i < column.distinct) expect(ours.every((row) => row.answer === 'maybe')).toBe(true);
        absentAnswers += ours.filter((row) => row.answer === 'absent').length;
      }
      // The filters do their work: most absent values are answered absent in every row group.
      expect(absentAnswers).toBeGreaterThan(0.9 * (PROBES / 4) * 4);
    });
  }

  it("a filter built from the same distinct values at DuckDB's size is DuckDB's bitset byte for byte", async () => {
    const groups = await connection.runAndReadAll(
      `SELECT row_group_id, path_in_schema, row_group_num_rows FROM parquet_metadata('${path}') ORDER BY row_group_id, column_id`,
    );
    let start = 0;
    const starts: number[] = [];
    for (const row of groups.getRows()) {
      if (row[1] === 's') {
        starts.push(start);
        start += Number(row[2]);
      }
    }
    starts.push(start);
    for (const column of COLUMNS) {
      for (let group = 0; group < 4; group++) {
        const theirs = (await filters.filter(group, column.name))!;
        const distinct = new Set<number>();
        for (let row = starts[group]!; row < starts[group + 1]!; row++) distinct.add(row % column.distinct);
        // DuckDB sizes each chunk's filter from its dictionary as parquet-java and arrow-rs do.
        expect(theirs.blocks * 32).toBe(parquetBitsetBytes(distinct.size, 0.01));
        const ours = SplitBlockBloomFilter.create(distinct.size, 0.01, {
          type: theirs.type,
          sizing: 'parquet',
        });
        ours.addAll([...distinct].map((i) => column.value(i)));
        expect(
          Buffer.from(ours.bitset()).equals(Buffer.from(theirs.bitset())),
          `${column.name} group ${group}`,
        ).toBe(true);
        const bytes = readFileSync(path);
        const chunk = filters.chunks.find((c) => c.rowGroup === group && c.column === column.name)!;
        expect(
          Buffer.from(ours.toParquet()).equals(bytes.subarray(chunk.offset, chunk.offset + chunk.length!)),
        ).toBe(true);
      }
    }
  });
});
