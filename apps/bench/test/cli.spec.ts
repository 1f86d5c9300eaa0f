import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';

describe('pnpm bench (tiny sizes, real child processes)', () => {
  it('runs each contender in a child process and writes the table, raw JSON and SVG charts', async () => {
    const out = `${mkdtempSync(join(tmpdir(), 'bloomkit-bench-'))}/`;
    await main([
      '--sizes',
      '3000',
      '--reps',
      '1',
      '--only',
      'bloomkit-standard,bloomfilter,hash-only',
      '--out',
      out,
    ]);
    const markdown = readFileSync(join(out, 'quick.md'), 'utf8');
    expect(markdown).toContain('### URL keys, n = 3000, p = 0.01');
    expect(markdown).toContain('| bloomkit standard |');
    expect(markdown).toContain('### Goals');
    const raw = JSON.parse(readFileSync(join(out, 'quick.json'), 'utf8'));
    // bloomkit: 2 key types × 2 targets; bloomfilter: URL keys only, 2 targets; hash only: 2 key types, first target.
    expect(raw.measurements.length).toBe(4 + 2 + 2);
    for (const chart of ['throughput.svg', 'fpr.svg', 'bits-per-key.svg'])
      expect(existsSync(join(out, chart))).toBe(true);
  }, 120_000);

  it('rejects unknown options and bad values', async () => {
    await expect(main(['--bogus'])).rejects.toThrow(/unknown option --bogus/);
    await expect(main(['--scale', '-5'])).rejects.toThrow(/--scale must be a positive integer/);
  });
});

describe('pnpm bench --from', () => {
  it('re-renders the charts of a saved run without measuring', async () => {
    const out = `${mkdtempSync(join(tmpdir(), 'bloomkit-bench-from-'))}/`;
    const saved = new URL('../results/quick.json', import.meta.url).pathname;
    await main(['--from', saved, '--out', out]);
    const svg = readFileSync(join(out, 'throughput.svg'), 'utf8');
    expect(svg).toContain('bloom-filters ScalableBloomFilter');
  });
});
