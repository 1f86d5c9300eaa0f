import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runQuickStart } from '@bloomkit/testkit';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

const README = new URL('../README.md', import.meta.url).pathname;

describe('README Quick start', () => {
  it('runs and prints what its comments say', async () => {
    const { printed, expected } = await runQuickStart(README, {
      '@bloomkit/parquet': pkg,
    });
    expect(expected.length).toBeGreaterThan(3);
    expect(printed).toEqual(expected);
  });
});

describe('README: pruning the row groups of a Parquet file', () => {
  it('the file its COPY writes gives the row groups, filters and answers its comments say', async () => {
    const text = readFileSync(README, 'utf8');
    const section = text.slice(text.indexOf('## Pruning the row groups'));
    const copy = /\/\/ {3}(COPY[\s\S]*?ROW_GROUP_SIZE \d+\))/.exec(section)![1]!.replace(/\n\/\/\s*/g, ' ');
    const dir = mkdtempSync(join(tmpdir(), 'bloomkit-readme-'));
    try {
      const file = join(dir, 'events.parquet');
      const connection = await (await DuckDBInstance.create(':memory:')).connect();
      await connection.run(copy.replace("'events.parquet'", `'${file}'`));
      connection.closeSync();
      const filters = await pkg.openParquetFilters(readFileSync(file));
      const said = /console\.log\(filters\.rowGroups, filters\.chunks\.length\); \/\/ (\d+) (\d+)/.exec(
        section,
      )!;
      expect([filters.rowGroups, filters.chunks.length]).toEqual([Number(said[1]), Number(said[2])]);
      const answers = await filters.mayContain('url', 'https://example.com/page/7');
      expect(answers.map((a) => a.answer)).toEqual(['maybe', 'absent', 'absent', 'absent']);
      expect(section).toContain("{ rowGroup: 0, answer: 'maybe' }, { rowGroup: 1, answer: 'absent' }");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
