import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../src/cli.js';
import {
  cacheSizes,
  type FootprintResult,
  type FootprintRun,
  footprintMarkdown,
  type Op,
  type Reader,
  runFootprint,
} from '../src/footprint.js';

const READERS: Reader[] = ['bloomfilter', 'standard', 'standard-4m', 'blocked-4m', 'counting'];
const OPS: Op[] = ['add', 'has hit', 'has miss'];

/** A result whose counting filter runs at `ratio` of bloomfilter's rate in every repetition and operation. */
function resultAt(ratio: number): FootprintResult {
  const measurements: FootprintRun[] = [];
  for (let rep = 0; rep < 3; rep++) {
    for (const reader of READERS) {
      for (const op of OPS) {
        const perSecond = 8e6 * (reader === 'bloomfilter' || reader === 'standard' ? 1 : ratio);
        measurements.push({ n: 1000, reader, op, perSecond });
      }
    }
  }
  const bytes = {
    bloomfilter: 1200,
    standard: 1200,
    'standard-4m': 4800,
    'blocked-4m': 4800,
    counting: 4800,
  };
  return { fpr: 0.01, reps: 3, caches: 'L2 2048K', sizes: [{ n: 1000, bytes }], measurements };
}

describe('pnpm bench --footprint', () => {
  it('is asked for by --footprint', () => {
    expect(parseArgs(['--footprint']).footprint).toBe(true);
    expect(parseArgs([]).footprint).toBe(false);
  });

  it('measures every reader and operation per size and repetition, on filters of the sizes it reports', () => {
    const lines: string[] = [];
    const result = runFootprint(2, (line) => lines.push(line), [3000, 1000]);
    expect(result.measurements).toHaveLength(2 * 2 * READERS.length * OPS.length);
    for (const m of result.measurements) expect(m.perSecond).toBeGreaterThan(0);
    expect(lines).toHaveLength(4);
    for (const { bytes } of result.sizes) {
      // The counting filter's counters and the wide standard filter's bits are the same bytes, 4× the bits.
      expect(bytes['standard-4m']).toBe(bytes.counting);
      expect(Math.abs(bytes['blocked-4m'] - bytes.counting)).toBeLessThanOrEqual(64);
      expect(Math.abs(bytes.counting - 4 * bytes.standard)).toBeLessThan(0.01 * bytes.counting);
      expect(Math.abs(bytes.bloomfilter - bytes.standard)).toBeLessThan(0.02 * bytes.standard);
    }
    const markdown = footprintMarkdown(result);
    expect(markdown).toContain('| 3,000 keys: counting add and has ≥ 0.9× bloomfilter |');
    expect(markdown).toContain('| 1,000 keys: counting add and has ≥ 0.9× bloomfilter |');
    // Every table's header and delimiter rows have the same number of cells, so they render.
    for (const table of markdown.split('\n\n').filter((block) => block.startsWith('|'))) {
      const [header, delimiter] = table.split('\n');
      expect(delimiter!.split('|').length).toBe(header!.split('|').length);
    }
  });

  it("names the caches from sysfs's entries in their order, and says unknown where there are none", () => {
    const dir = mkdtempSync(join(tmpdir(), 'bloomkit-caches-'));
    try {
      const entries = [
        ['index0', '1', 'Data', '48K'],
        ['index1', '1', 'Instruction', '32K'],
        ['index2', '2', 'Unified', '2048K'],
      ];
      for (const [name, level, type, size] of entries) {
        mkdirSync(join(dir, name!));
        writeFileSync(join(dir, name!, 'level'), `${level}\n`);
        writeFileSync(join(dir, name!, 'type'), `${type}\n`);
        writeFileSync(join(dir, name!, 'size'), `${size}\n`);
      }
      mkdirSync(join(dir, 'power')); // not a cache: left out
      expect(cacheSizes(dir)).toBe('L1d 48K, L1i 32K, L2 2048K');
      expect(cacheSizes(join(dir, 'missing'))).toBe('unknown');
      expect(cacheSizes(join(dir, 'power'))).toBe('unknown'); // a folder that lists no cache
      rmSync(join(dir, 'index2', 'size'));
      expect(cacheSizes(dir)).toBe('unknown');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('calls the goal met at 0.9× bloomfilter and short below, with the wide standard filter beside it', () => {
    expect(footprintMarkdown(resultAt(0.9))).toContain('≥ 0.9× bloomfilter | met | add 0.90× (0.90–0.90)');
    const short = footprintMarkdown(resultAt(0.8));
    expect(short).toContain('≥ 0.9× bloomfilter | **short** | add 0.80× (0.80–0.80)');
    expect(short).toContain("at the counting filter's bytes, standard: add 0.80×");
    expect(short).toContain('; blocked: add 0.80×');
    expect(short).toContain('caches (CPU 0): L2 2048K');
  });
});
