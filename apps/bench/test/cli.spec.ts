import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, parseArgs } from '../src/cli.js';
import { HEADLINE } from '../src/plan.js';

/**
 * What `main` prints on stdout and stderr while `run` runs, kept out of the test log (the bench's tables are for a
 * reader of a run, not of the test suite) and returned for the test to check.
 */
async function printedBy(run: () => Promise<unknown>): Promise<string> {
  let printed = '';
  const { stdout, stderr } = process;
  const out = stdout.write;
  const err = stderr.write;
  const keep = ((text: string | Uint8Array) => {
    printed += String(text);
    return true;
  }) as typeof process.stdout.write;
  stdout.write = keep;
  stderr.write = keep;
  try {
    await run();
  } finally {
    stdout.write = out;
    stderr.write = err;
  }
  return printed;
}

/** A fresh output directory, removed when the file's tests end (a run leaves nothing in the temporary directory). */
const outputs: string[] = [];
function outputDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  outputs.push(dir);
  return `${dir}/`;
}
afterAll(() => {
  for (const dir of outputs) rmSync(dir, { recursive: true, force: true });
});

describe('pnpm bench (tiny sizes, real child processes)', () => {
  it('runs the quick plan at a tiny n: every headline contender in a child process, table, JSON, charts', async () => {
    const out = outputDir('bloomkit-bench-');
    const printed = await printedBy(() => main(['--sizes', '3000', '--reps', '2', '--out', out]));
    const markdown = readFileSync(join(out, 'quick.md'), 'utf8');
    expect(printed).toContain('| bloomkit standard |'); // the table goes to stdout too
    expect(markdown).toContain('### URL keys, n = 3000, p = 0.01');
    expect(markdown).toContain('| bloomkit standard |');
    expect(markdown).toContain('| standard ≥ 1.3× bloomfilter (n = 3000');
    expect(markdown).toContain('one at a time');
    const raw = JSON.parse(readFileSync(join(out, 'quick.json'), 'utf8'));
    expect(raw.measurements.length).toBe(2 * HEADLINE.length);
    expect(new Set(raw.measurements.map((m: { job: { rep: number } }) => m.job.rep))).toEqual(
      new Set([0, 1]),
    );
    for (const chart of ['throughput.svg', 'fpr.svg', 'bits-per-key.svg'])
      expect(existsSync(join(out, chart))).toBe(true);
    // Every table's header and delimiter rows have the same number of cells, so they render.
    for (const table of markdown.split('\n\n').filter((block) => block.startsWith('| contender'))) {
      const [header, delimiter] = table.split('\n');
      expect(delimiter!.split('|').length).toBe(header!.split('|').length);
    }
  });

  it('prints help, and refuses a typo in --only before measuring or writing anything', async () => {
    const printed = await printedBy(() => main(['--help']));
    expect(printed).toContain('Usage: pnpm bench');
    expect(printed).toContain('bloomkit-standard');
    await expect(main(['--only', 'bloomkit-standrad'])).rejects.toThrow(
      /unknown contender bloomkit-standrad/,
    );
  });

  it('rejects unknown options and bad values', async () => {
    await expect(main(['--bogus'])).rejects.toThrow(/unknown option --bogus/);
    await expect(main(['--scale', '-5'])).rejects.toThrow(/--scale must be a positive integer/);
  });
});

describe('where pnpm bench writes', () => {
  const under = (path: string) => path.replace(/\\/g, '/').split('/apps/bench/')[1];

  it('keeps the committed results unless asked: a whole run goes to results/latest/, a narrowed one to results/partial/', () => {
    expect(under(parseArgs([]).out)).toBe('results/latest/');
    expect(under(parseArgs(['--redis']).out)).toBe('results/latest/');
    expect(under(parseArgs(['--only', 'bloomfilter']).out)).toBe('results/partial/');
    expect(under(parseArgs(['--reps', '3']).out)).toBe('results/partial/');
    expect(parseArgs(['--out', '/somewhere/']).out).toBe('/somewhere/');
  });

  it('writes the committed results with --publish, for a whole run only', () => {
    expect(under(parseArgs(['--publish']).out)).toBe('results/');
    expect(under(parseArgs(['--dedup', '--publish']).out)).toBe('results/');
    for (const narrowing of [
      ['--only', 'bloomfilter'],
      ['--sizes', '1000'],
      ['--reps', '1'],
      ['--out', '/x/'],
    ])
      expect(() => parseArgs(['--publish', ...narrowing])).toThrow(/--publish writes the committed results/);
  });
});

describe('pnpm bench --from', () => {
  it('re-renders the charts of a saved run without measuring', async () => {
    const out = outputDir('bloomkit-bench-from-');
    const saved = new URL('../results/quick.json', import.meta.url).pathname;
    await printedBy(() => main(['--from', saved, '--out', out]));
    const svg = readFileSync(join(out, 'throughput.svg'), 'utf8');
    expect(svg).toContain('bloomkit standard');
  });
});
