import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPARED, MEMORY_FPR, memoryOverRange } from '../../apps/bench/src/scalable-memory.js';

/**
 * The READMEs' measured numbers are the results files' numbers: each table or sentence that quotes a benchmark
 * names the command and the file, and here every number it quotes must be in that file (the matching row, where
 * the rows line up). A new results file without the README updated, or a hand-typed figure, fails.
 */

const root = new URL('../..', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/**
 * The numbers in a text, commas dropped and powers of ten written out: "1,936,132" → "1936132", "0.95–1.13" →
 * "0.95", "1.13", "10^5" → "100000", "3·10^6" → "3000000".
 */
function numbers(text: string): string[] {
  const plain = text.replace(/(?:(\d+)·)?10\^(\d+)/g, (_, factor: string | undefined, power: string) =>
    String(Number(factor ?? 1) * 10 ** Number(power)),
  );
  return [...plain.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((found) => found[0].replace(/,/g, ''));
}

/** The rows of the first Markdown table after `heading` (or of the first table in `text`), as arrays of cells. */
function table(text: string, heading = ''): string[][] {
  const from = heading === '' ? 0 : text.indexOf(heading);
  if (from < 0) throw new Error(`no "${heading}"`);
  // Tables may be indented (inside a list item).
  const lines = text
    .slice(from)
    .split('\n')
    .map((line) => line.trimStart());
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** Numbers of every cell but the first (the row's name, whose numbers are parameters, not results). */
const resultNumbers = (row: string[]) => numbers(row.slice(1).join(' | '));

describe("the root README's benchmark summary", () => {
  it('gives the goals table row by row as results/quick.md does', () => {
    const readme = read('README.md');
    const summary = readme.slice(readme.indexOf('## Benchmark summary'), readme.indexOf('## Packages'));
    const ours = table(summary);
    const theirs = table(read('apps/bench/results/quick.md'), '### Goals');
    expect(ours.length).toBe(theirs.length);
    ours.forEach((row, i) => {
      expect(row[1], row[0]).toBe(theirs[i]![1]); // met / short
      for (const value of resultNumbers(row))
        expect(resultNumbers(theirs[i]!), `${row[0]}: ${value}`).toContain(value);
    });
  });
});

describe("the bench README's latest results", () => {
  const readme = read('apps/bench/README.md');
  const section = readme.slice(readme.indexOf('<!-- bench:start -->'), readme.indexOf('<!-- bench:end -->'));
  const quick = read('apps/bench/results/quick.md');

  it('cites results/quick.md, from the same run (date and Node version)', () => {
    expect(section).toContain('(results/quick.md)');
    const run = /Node (v[\d.]+), [^,]+, [^,]+, (\d{4}-\d\d-\d\d)/.exec(quick);
    expect(run).not.toBeNull();
    expect(section).toContain(`Node ${run![1]}`);
    expect(section).toContain(run![2]);
  });

  it('gives the goals table row by row as the results file does', () => {
    const ours = table(section);
    const theirs = table(quick, '### Goals');
    expect(ours.length).toBe(theirs.length);
    ours.forEach((row, i) => {
      expect(row[1], row[0]).toBe(theirs[i]![1]); // met / short
      expect(theirs[i]![1]).toMatch(/met|short/);
      for (const value of resultNumbers(row))
        expect(resultNumbers(theirs[i]!), `${row[0]}: ${value}`).toContain(value);
    });
  });

  it('gives the 10^6 throughput table as the results file does', () => {
    const ours = table(section, '| 10^6 URL keys, M ops/s');
    const theirs = table(quick, '### URL keys, n = 10^6');
    expect(ours.length).toBe(theirs.length);
    ours.forEach((row, i) => {
      // add, has hit, has miss, batch add, batch has: the results' first five columns.
      expect(resultNumbers(row), row[0]).toEqual(numbers(theirs[i]!.slice(1, 6).join(' ')));
    });
  });

  it('quotes the out-of-cache run from results/out-of-cache/full.md', () => {
    const sentence = section.slice(section.indexOf('At 10^7 keys'), section.indexOf('On this machine on'));
    expect(sentence).toContain('(results/out-of-cache/full.md)');
    const full = numbers(read('apps/bench/results/out-of-cache/full.md'));
    const quoted = [...sentence.matchAll(/(\d+\.\d+)×/g)].map((found) => found[1]!);
    expect(quoted.length).toBeGreaterThan(3);
    for (const value of quoted) expect(full, value).toContain(value);
  });

  it('quotes the blocked filter at 10^7 from results/out-of-cache/blocked/quick.md', () => {
    const sentence = section.slice(
      section.indexOf('On this machine on'),
      section.indexOf('Where bloomkit falls short'),
    );
    expect(sentence).toContain('(results/out-of-cache/blocked/quick.md)');
    const run = numbers(read('apps/bench/results/out-of-cache/blocked/quick.md'));
    // Every rate and ratio quoted (two decimals), not the command's parameters.
    const quoted = [...sentence.matchAll(/\d+\.\d\d/g)].map((found) => found[0]);
    expect(quoted.length).toBeGreaterThan(8);
    for (const value of quoted) expect(run, value).toContain(value);
  });
});

describe("the CLI README's dedup table", () => {
  it('is results/dedup.md, row by row', () => {
    const readme = read('packages/cli/README.md');
    const dedup = read('apps/bench/results/dedup.md');
    expect(readme).toContain('Measured with `pnpm bench --dedup 1e7`');
    const ours = table(readme, '| command | lines/s');
    const theirs = table(dedup, '| command | lines/s');
    expect(ours.length).toBe(theirs.length);
    const everywhere = numbers(dedup);
    ours.forEach((row, i) => {
      for (const value of resultNumbers(row)) {
        // Each number is in the matching row, or (the memory ratio, the goal's 1/10.9) in the file's goals.
        const inRow = resultNumbers(theirs[i]!).includes(value);
        expect(inRow || everywhere.includes(value), `${row[0]}: ${value}`).toBe(true);
      }
    });
  });
});

describe("the bench README's --footprint figures", () => {
  it("are results/footprint.md's ratios", () => {
    const readme = read('apps/bench/README.md');
    const from = readme.indexOf('Measured on', readme.indexOf('`--footprint` asks'));
    // Line breaks are wherever the paragraph wraps: read it as one line.
    const sentence = readme
      .slice(from, readme.indexOf('Results: `results/footprint.md`', from))
      .replace(/\s+/g, ' ');
    expect(sentence).toContain('(`pnpm bench --footprint`, 5 repetitions)');
    const ratios = [...sentence.matchAll(/\d+\.\d+×/g)].map((found) => found[0]);
    expect(ratios.length).toBe(15);
    const results = read('apps/bench/results/footprint.md');
    for (const ratio of ratios) expect(results, ratio).toContain(ratio);
  });
});

describe("the scalable README's memory table", () => {
  it('is what `pnpm bench --scalable-memory` computes from the schedules', () => {
    const readme = read('packages/scalable/README.md');
    expect(readme).toContain('`pnpm bench --scalable-memory`');
    const rows = table(readme, '| growth, tightening |');
    expect(rows.length).toBe(COMPARED.length);
    const x = (value: number) => `${value.toFixed(2)}×`;
    for (const [growth, tightening] of COMPARED) {
      const row = rows.find((cells) => cells[0]!.startsWith(`${growth}, ${tightening}`));
      expect(row, `${growth}, ${tightening}`).toBeDefined();
      const [from100, from1000] = [100, 1000].map((initialCapacity) =>
        memoryOverRange({ initialCapacity, fpr: MEMORY_FPR, growth, tightening }),
      );
      expect(row!.slice(1)).toEqual([
        `${x(from100!.geometricMean)}, ${x(from100!.worst)}`,
        `${x(from1000!.geometricMean)}, ${x(from1000!.worst)}`,
        String(from1000!.subFiltersAtMillion),
      ]);
    }
  });
});
