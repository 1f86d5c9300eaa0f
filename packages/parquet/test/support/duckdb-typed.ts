import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * A column of every logical type DuckDB writes a split-block filter for: its SQL of value i (i a BIGINT), how many
 * distinct values the file holds (i below `distinct`), and how far i may go before the type wraps (`limit`: absent
 * values are distinct..limit - 1). A probe is the value's text as DuckDB prints it (CAST(… AS VARCHAR)).
 */
export interface TypedColumn {
  readonly name: string;
  readonly sql: string;
  readonly distinct: number;
  readonly limit: number;
}

const BIG = 1_000_000;

export const TYPED_COLUMNS: readonly TypedColumn[] = [
  {
    name: 'uuid',
    sql: `('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID`,
    distinct: 2000,
    limit: BIG,
  },
  { name: 'dec4', sql: '(i / 10.0 - 500)::DECIMAL(4,1)', distinct: 2000, limit: 9999 },
  { name: 'dec9', sql: '(i / 100.0 - 7)::DECIMAL(9,2)', distinct: 2000, limit: BIG },
  { name: 'dec18', sql: '(i * 1.0001 - 50)::DECIMAL(18,4)', distinct: 2000, limit: BIG },
  { name: 'u8', sql: '(255 - i)::UTINYINT', distinct: 150, limit: 256 },
  { name: 'u16', sql: '(65535 - i)::USMALLINT', distinct: 2000, limit: 65536 },
  { name: 'u32', sql: '(4294967295 - i)::UINTEGER', distinct: 2000, limit: BIG },
  { name: 'u64', sql: '(18446744073709551615 - i::HUGEINT)::UBIGINT', distinct: 2000, limit: BIG },
  { name: 'i8', sql: '(i - 128)::TINYINT', distinct: 150, limit: 256 },
  { name: 'i16', sql: '(i * 7 - 32768)::SMALLINT', distinct: 2000, limit: 9362 },
  { name: 't', sql: `TIME '00:00:00' + to_microseconds(i * 1000003)`, distinct: 2000, limit: 86_000 },
  { name: 'ttz', sql: `TIMETZ '00:00:00+00' + to_microseconds(i * 1000003)`, distinct: 2000, limit: 86_000 },
  { name: 'ts', sql: `TIMESTAMP '2020-01-01' + to_microseconds(i * 1000003)`, distinct: 2000, limit: BIG },
  {
    name: 'tstz',
    sql: `TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_microseconds(i * 1000003)`,
    distinct: 2000,
    limit: BIG,
  },
  { name: 'tsms', sql: `TIMESTAMP_MS '2020-01-01' + to_milliseconds(i * 1003)`, distinct: 2000, limit: BIG },
  { name: 'tsns', sql: `TIMESTAMP_NS '2020-01-01' + to_microseconds(i * 1003)`, distinct: 2000, limit: BIG },
  { name: 'tss', sql: `TIMESTAMP_S '2020-01-01' + to_seconds(i)`, distinct: 2000, limit: BIG },
  { name: 'dt', sql: `DATE '1950-01-01' + i::INTEGER`, distinct: 2000, limit: BIG },
  { name: 'f', sql: '(i / 8.0 - 100)::FLOAT', distinct: 2000, limit: BIG },
  { name: 'd', sql: '(i / 3.0 - 100)::DOUBLE', distinct: 2000, limit: BIG },
  { name: 'hi', sql: '(i::HUGEINT * 100000000000000000000)', distinct: 2000, limit: BIG },
  {
    name: 'iv',
    sql: 'to_months(i % 7) + to_days(i % 40) + to_milliseconds(i * 1001)',
    distinct: 2000,
    limit: BIG,
  },
  { name: 'js', sql: `('{"a":' || i::VARCHAR || '}')::JSON`, distinct: 2000, limit: BIG },
  { name: 'bl', sql: `('blob' || i::VARCHAR)::BLOB`, distinct: 2000, limit: BIG },
  { name: 's', sql: `'https://example.com/' || i::VARCHAR || '/é'`, distinct: 2000, limit: BIG },
];

/**
 * A Parquet file DuckDB wrote with the columns above (4 row groups of 20,000 rows, each column cycling over its
 * distinct values), in a directory of its own; `dispose` closes the connection and removes it.
 */
export async function duckdbTypedFile(): Promise<{
  connection: DuckDBConnection;
  path: string;
  dispose(): void;
}> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const dir = mkdtempSync(join(tmpdir(), 'bloomkit-parquet-typed-'));
  const path = join(dir, 'typed.parquet');
  // Each column's expression of i, with i the row number modulo the column's distinct count.
  const columns = TYPED_COLUMNS.map(
    (column) => `${expressionOf(column, `n % ${column.distinct}`)} AS ${column.name}`,
  );
  await connection.run(
    `COPY (SELECT ${columns.join(', ')} FROM range(80000) t(n)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 20000)`,
  );
  return {
    connection,
    path,
    dispose() {
      connection.closeSync();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A column's SQL with `i` replaced by `value` (an SQL expression of a BIGINT). */
export function expressionOf(column: TypedColumn, value: string): string {
  return column.sql.replace(/\bi\b/g, `(${value})::BIGINT`);
}

/** DuckDB's text of value i of a column, for each i of `indexes`, in one query. */
export async function duckdbTexts(
  connection: DuckDBConnection,
  column: TypedColumn,
  indexes: readonly number[],
): Promise<string[]> {
  const result = await connection.runAndReadAll(
    `SELECT CAST(${expressionOf(column, 'x')} AS VARCHAR) FROM unnest([${indexes.join(',')}]::BIGINT[]) t(x)`,
  );
  return result.getRows().map((row) => String(row[0]));
}

/** For each row group, whether DuckDB's filter says it may hold value i of the column (not excluded). */
export async function duckdbMay(
  connection: DuckDBConnection,
  path: string,
  column: TypedColumn,
  i: number,
): Promise<boolean[]> {
  const result = await connection.runAndReadAll(
    `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${path}', '${column.name}', ${expressionOf(column, String(i))}) ORDER BY row_group_id`,
  );
  return result.getRows().map((row) => row[1] !== true);
}
