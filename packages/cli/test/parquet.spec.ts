import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const file = join(dir, 'events.parquet');

describe('bloomkit parquet', () => {
  beforeAll(async () => {
    // Two row groups of about 3,000 urls each (DuckDB rounds a row group to 2,048-row vectors), dictionary-encoded,
    // so DuckDB writes a filter for each column chunk.
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    await connection.run(
      `COPY (SELECT 'https://example.com/' || (i // 10)::VARCHAR AS url, (i // 10)::INTEGER AS id,
              DATE '2024-01-01' + ((i // 10) % 100)::INTEGER AS day,
              TIMESTAMP '2024-01-01' + to_microseconds((i // 10)::BIGINT * 1000) AS at, ((i // 10) / 8.0)::DOUBLE AS score
            FROM range(60000) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 30000)`,
    );
    connection.closeSync();
  });

  it('prints, per value, the row groups that may hold it; exits 0 when some may, 1 when none may', async () => {
    const run = await bloomkit(
      ['parquet', file, '--column', 'url', 'https://example.com/7', 'https://example.com/4500', 'nope'],
      { cwd: dir },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('https://example.com/7\t0\nhttps://example.com/4500\t1\nnope\t-\n');
    expect(run.status).toBe(0);
    const none = await bloomkit(['parquet', file, '--column', 'url', 'nope', 'also-nope'], { cwd: dir });
    expect([none.status, none.stdout]).toEqual([1, 'nope\t-\nalso-nope\t-\n']);
  });

  it('reads typed values as text: integers, dates, timestamps, doubles; from --from files and stdin', async () => {
    const typed = [
      ['id', '42', '0'],
      ['id', '4200', '1'],
      ['day', '2024-01-05', '0 1'],
      ['at', '2024-01-01 00:00:00.042', '0'],
      ['score', '0.125', '0'],
    ];
    for (const [column, value, groups] of typed) {
      const run = await bloomkit(['parquet', file, '--column', column!, value!], { cwd: dir });
      expect(run.stdout, `${column} ${value}`).toBe(`${value}\t${groups}\n`);
    }
    const values = Array.from({ length: 200 }, (_, i) => String(i * 37));
    writeFileSync(join(dir, 'ids.txt'), `${values.join('\n')}\n`);
    const fromFile = await bloomkit(['parquet', file, '--column', 'id', '--from', 'ids.txt'], { cwd: dir });
    const fromStdin = await bloomkit(['parquet', file, '--column', 'id'], {
      cwd: dir,
      input: `${values.join('\n')}\n`,
    });
    expect(fromFile.stdout).toBe(fromStdin.stdout);
    const lines = fromFile.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(200);
    for (const [i, line] of lines.entries()) {
      const id = i * 37;
      // Present ids are never answered absent; absent ones (6000 and above) mostly are.
      if (id < 6000) expect(line).not.toMatch(/\t-$/);
    }
    const absent = lines.filter((line, i) => i * 37 >= 6000 && line.endsWith('\t-')).length;
    expect(absent).toBeGreaterThan(0.9 * lines.filter((_, i) => i * 37 >= 6000).length);
  });

  it("--json prints each row group's answer; without --column it lists the filters, as info does", async () => {
    const json = await bloomkit(['parquet', file, '--column', 'id', '--json', '17'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({ value: '17', rowGroups: [0], answers: ['maybe', 'absent'] });
    const list = await bloomkit(['parquet', file], { cwd: dir });
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/^2 row groups, 10 column chunks with a split-block filter\n/);
    expect(list.stdout).toMatch(/\n0\turl\tBYTE_ARRAY\t4.0 KiB\t[\d.]+%\t3,\d{3}\t0.0\d+\n/);
    const info = await bloomkit(['info', file], { cwd: dir });
    expect(info.stdout).toBe(list.stdout);
    const listed = JSON.parse((await bloomkit(['info', file, '--json'], { cwd: dir })).stdout);
    expect(listed.columns.map((c: { name: string }) => c.name)).toEqual(['url', 'id', 'day', 'at', 'score']);
    expect(listed.filters).toHaveLength(10);
  });

  it('refuses a value of the wrong type, an unknown column, a file that is not Parquet, and a FIFO, with exit 2', async () => {
    const bad = await bloomkit(['parquet', file, '--column', 'id', 'x'], { cwd: dir });
    expect([bad.status, bad.stderr]).toEqual([
      2,
      'bloomkit: parquet: column id (INT32) takes an integer, got "x"\n',
    ]);
    const date = await bloomkit(['parquet', file, '--column', 'day', '2024-02-30'], { cwd: dir });
    expect(date.status).toBe(2);
    expect(date.stderr).toMatch(/column day \(DATE\) takes a date/);
    const column = await bloomkit(['parquet', file, '--column', 'nope', 'x'], { cwd: dir });
    expect([column.status, column.stderr]).toEqual([
      2,
      `bloomkit: parquet: ${file} has no column 'nope' (it has url, id, day, at, score)\n`,
    ]);
    writeFileSync(join(dir, 'not.parquet'), 'PAR1 but not really a parquet file at all');
    const notParquet = await bloomkit(['parquet', join(dir, 'not.parquet'), '--column', 'url', 'x'], {
      cwd: dir,
    });
    expect(notParquet.status).toBe(2);
    expect(notParquet.stderr).toMatch(/not a readable Parquet file/);
    const fifo = join(dir, 'fifo.parquet');
    execFileSync('mkfifo', [fifo]);
    const fromFifo = await bloomkit(['parquet', fifo], { cwd: dir });
    expect([fromFifo.status, fromFifo.stderr]).toEqual([
      2,
      `bloomkit: ${fifo}: not a regular file (a Parquet file is read at offsets)\n`,
    ]);
  });

  it('reads values as the schema types them: UUID, DECIMAL, unsigned, TIME, timestamps with offsets, as DuckDB prints them', async () => {
    const typed = join(dir, 'typed.parquet');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    await connection.run(
      `COPY (SELECT ('00000000-0000-4000-8000-' || lpad((i % 200)::VARCHAR, 12, '0'))::UUID AS id,
              ((i % 200) + 12)::DECIMAL(9,2) AS price, (4294967295 - i % 200)::UINTEGER AS big,
              TIME '00:00:00' + to_seconds((i % 200)::BIGINT) AS t,
              TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds((i % 200)::BIGINT) AS at, ((i % 200) * 2)::DOUBLE AS d
            FROM range(20000) t(i)) TO '${typed}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`,
    );
    connection.closeSync();
    const present: [string, string][] = [
      ['id', '00000000-0000-4000-8000-000000000007'],
      ['price', '12'],
      ['price', '12.00'],
      ['price', '211.0'],
      ['big', '4294967295'],
      ['t', '00:00:07'],
      ['at', '2024-01-01 00:00:07+00:00'],
      ['at', '2024-01-01 02:00:07+02'],
    ];
    for (const [column, value] of present) {
      const run = await bloomkit(['parquet', typed, '--column', column, value], { cwd: dir });
      expect([run.status, run.stdout, run.stderr], `${column} ${value}`).toEqual([0, `${value}\t0 1\n`, '']);
    }
    // A value the type cannot hold is said on stderr; the values around it are still answered, and the run exits 2.
    const mixed = await bloomkit(['parquet', typed, '--column', 'price', '12', '12.001', '13.5', '14'], {
      cwd: dir,
    });
    expect(mixed.stdout).toBe('12\t0 1\n13.5\t-\n14\t0 1\n');
    expect(mixed.stderr).toMatch(
      /^bloomkit: parquet: column price \(DECIMAL\(9, 2\)\) takes a decimal number with at most 2 digits after the point and 9 in all, got "12.001"\n$/,
    );
    expect(mixed.status).toBe(2);
    const hex = await bloomkit(['parquet', typed, '--column', 'd', '0x1', '2'], { cwd: dir });
    expect([hex.status, hex.stdout]).toEqual([2, '2\t0 1\n']);
    expect(hex.stderr).toMatch(/column d \(DOUBLE\) takes a number, got "0x1"/);
  });
});
