import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/** The file's columns: name, DuckDB type, the SQL of row i's value, and how a probe literal is written. */
export interface DuckColumn {
  readonly name: string;
  readonly sql: string;
  /** A probe value as bloomkit takes it, for an integer `i` (present when i is below the column's distinct count). */
  readonly value: (i: number) => string | number | bigint;
  /** The SQL literal of the same value, for parquet_bloom_probe. */
  readonly literal: (i: number) => string;
  /** Distinct values the column holds. */
  readonly distinct: number;
}

const DAY_MS = 86_400_000;
const EPOCH_2020_DAYS = Date.UTC(2020, 0, 1) / DAY_MS;

/**
 * Six dictionary-encoded columns of the types the issue names (DuckDB writes a filter for a column chunk when it is
 * dictionary-encoded: few enough distinct values), over four row groups of 25,000 rows; value i of a column is
 * present for i below its distinct count and absent above it.
 */
export const COLUMNS: readonly DuckColumn[] = [
  {
    name: 's',
    sql: `'https://example.com/page/' || (i % 3000)::VARCHAR || '/é'`,
    value: (i) => `https://example.com/page/${i}/é`,
    literal: (i) => `'https://example.com/page/${i}/é'`,
    distinct: 3000,
  },
  {
    name: 'n',
    sql: '((i % 2500) - 1250)::INTEGER',
    value: (i) => i - 1250,
    literal: (i) => `${i - 1250}::INTEGER`,
    distinct: 2500,
  },
  {
    name: 'b',
    sql: '((i % 2000) * 1000000007 - 1000000000000)::BIGINT',
    value: (i) => BigInt(i) * 1000000007n - 1000000000000n,
    literal: (i) => `${BigInt(i) * 1000000007n - 1000000000000n}::BIGINT`,
    distinct: 2000,
  },
  {
    name: 'd',
    sql: '((i % 1500) / 4.0 - 100)::DOUBLE',
    value: (i) => i / 4 - 100,
    literal: (i) => `${i / 4 - 100}::DOUBLE`,
    distinct: 1500,
  },
  {
    name: 'dt',
    sql: `DATE '2020-01-01' + (i % 1000)::INTEGER`,
    // DATE is INT32 days since 1970-01-01.
    value: (i) => EPOCH_2020_DAYS + i,
    literal: (i) => `DATE '2020-01-01' + ${i}::INTEGER`,
    distinct: 1000,
  },
  {
    name: 'ts',
    sql: `TIMESTAMP '2020-01-01' + to_microseconds((i % 1200)::BIGINT * 1000003)`,
    // TIMESTAMP is INT64 microseconds since the epoch.
    value: (i) => BigInt(Date.UTC(2020, 0, 1)) * 1000n + BigInt(i) * 1000003n,
    literal: (i) => `TIMESTAMP '2020-01-01' + to_microseconds(${i}::BIGINT * 1000003)`,
    distinct: 1200,
  },
];

/**
 * A DuckDB in memory and a Parquet file it wrote with the columns above, in a directory of its own; `dispose`
 * closes the connection and removes the directory (call it in afterAll: a run leaves nothing in the temporary
 * directory).
 */
export async function duckdbFile(
  rows = 100_000,
  rowGroupSize = 25_000,
): Promise<{ connection: DuckDBConnection; path: string; dispose(): void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const dir = mkdtempSync(join(tmpdir(), 'bloomkit-parquet-'));
  const path = join(dir, 'duck.parquet');
  const select = COLUMNS.map((column) => `${column.sql} AS ${column.name}`).join(', ');
  await connection.run(
    `COPY (SELECT ${select} FROM range(${rows}) t(i)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE ${rowGroupSize})`,
  );
  const dispose = () => {
    connection.closeSync();
    rmSync(dir, { recursive: true, force: true });
  };
  return { connection, path, dispose };
}

/** DuckDB's own answer: for each row group, true when its filter says the value is absent. */
export async function duckdbExcludes(
  connection: DuckDBConnection,
  path: string,
  column: string,
  literal: string,
): Promise<boolean[]> {
  const result = await connection.runAndReadAll(
    `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${path}', '${column}', ${literal}) ORDER BY row_group_id`,
  );
  return result.getRows().map((row) => row[1] as boolean);
}
