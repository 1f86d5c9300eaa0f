import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng, yieldToRunner } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

/** `count` lines, about `repeats` of them repeats of earlier ones, as awk '!seen[$0]++' would dedup them. */
/** `count` URL lines, a fraction `repeats` of them repeats of earlier ones; lets the event loop run every 100,000. */
async function stream(
  count: number,
  repeats: number,
  seed: number,
): Promise<{ input: string; firsts: string }> {
  const next = prng(seed);
  const lines: string[] = [];
  const seen = new Set<string>();
  const firsts: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 100_000 === 99_999) await yieldToRunner();
    const line =
      lines.length > 0 && next() / 2 ** 32 < repeats
        ? lines[next() % lines.length]!
        : `https://h${i % 97}.example.com/${next().toString(36)}/${i}`;
    lines.push(line);
    if (!seen.has(line)) {
      seen.add(line);
      firsts.push(line);
    }
  }
  return { input: `${lines.join('\n')}\n`, firsts: `${firsts.join('\n')}\n` };
}

describe('dedup', () => {
  it('prints first occurrences in order, like awk, with every kind of filter', async () => {
    const { input, firsts } = await stream(20_000, 0.3, 1);
    for (const args of [[], ['--capacity', '20000'], ['--capacity', '20000', '--kind', 'standard']]) {
      const run = await bloomkit(['dedup', '--fpr', '1e-9', ...args], { cwd: dir, input });
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(firsts);
    }
  });

  it('drops only false positives beyond the repeats, at about the target rate', async () => {
    const { input, firsts } = await stream(50_000, 0.3, 2);
    // A first sub-filter of 5,000 lines, so the chain grows several times and its rate approaches the target.
    const run = await bloomkit(['dedup', '--capacity', '5000', '--fpr', '0.01', '--stats'], {
      cwd: dir,
      input,
    });
    const out = run.stdout.split('\n');
    const expected = firsts.split('\n');
    // Output is a subsequence of awk's: every printed line is a first occurrence, in order.
    let j = 0;
    for (const line of out) {
      while (j < expected.length && expected[j] !== line) j++;
      expect(j).toBeLessThan(expected.length);
      j++;
    }
    const dropped = expected.length - out.length;
    expect(dropped).toBeGreaterThan(0);
    expect(dropped / expected.length).toBeLessThan(0.01);
    expect(run.stderr).toMatch(/^dedup: 50000 lines in, \d+ out, \d+ dropped; \d+ lines\/s; scalable filter/);
  });

  it('resumes from --state: two runs over halves print what one run over the whole prints', async () => {
    const { input, firsts } = await stream(10_000, 0.5, 3);
    const lines = input.split('\n');
    const half = `${lines.slice(0, 5_000).join('\n')}\n`;
    const rest = lines.slice(5_000).join('\n');
    const state = join(dir, 'seen.bf');
    const first = await bloomkit(['dedup', '--state', state, '--fpr', '1e-9'], { cwd: dir, input: half });
    expect(existsSync(state)).toBe(true);
    const second = await bloomkit(['dedup', '--state', state], { cwd: dir, input: rest });
    expect(first.stdout + second.stdout).toBe(firsts);
    const info = JSON.parse((await bloomkit(['info', '--json', state], { cwd: dir })).stdout);
    expect(info).toMatchObject({ kind: 'scalable', count: firsts.split('\n').length - 1 });
    const wrongKind = await bloomkit(['dedup', '--state', state, '--kind', 'blocked', '--capacity', '10'], {
      cwd: dir,
    });
    expect(wrongKind.status).toBe(2);
    expect(wrongKind.stderr).toMatch(/holds a scalable filter, not blocked/);
  });

  it('handles NUL records, CRLF, a missing final newline, empty lines, and lines longer than its buffer', async () => {
    const nul = await bloomkit(['dedup', '-0'], { cwd: dir, input: 'a\0b\0a\0c\nd\0' });
    expect(nul.stdout).toBe('a\0b\0c\nd\0');
    const crlf = await bloomkit(['dedup'], { cwd: dir, input: 'x\r\ny\nx\n\n\ny' });
    expect(crlf.stdout).toBe('x\r\ny\n\n');
    const long = 'L'.repeat(3 * 1024 * 1024);
    const longRun = await bloomkit(['dedup'], { cwd: dir, input: `${long}\nshort\n${long}\n${long}x` });
    expect(longRun.stdout).toBe(`${long}\nshort\n${long}x`);
  });

  it('reads input files in order, and reports an unreadable one on one line', async () => {
    writeFileSync(join(dir, 'one.txt'), 'a\nb\n');
    writeFileSync(join(dir, 'two.txt'), 'b\nc\n');
    const run = await bloomkit(['dedup', join(dir, 'one.txt'), join(dir, 'two.txt')], { cwd: dir });
    expect(run.stdout).toBe('a\nb\nc\n');
    const missing = await bloomkit(['dedup', join(dir, 'nope.txt')], { cwd: dir });
    expect([missing.status, missing.stderr]).toEqual([
      2,
      `bloomkit: ${join(dir, 'nope.txt')}: no such file or directory\n`,
    ]);
    expect((await bloomkit(['dedup', '--kind', 'blocked'], { cwd: dir })).stderr).toMatch(/needs --capacity/);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps its memory flat: a stream ten times longer through the same filter takes no more memory', async () => {
    const peak = async (lines: number) => {
      const { input } = await stream(lines, 0.3, 4);
      const run = await bloomkit(['dedup', '--capacity', '100000', '--stats'], { cwd: dir, input });
      expect(run.stderr).toMatch(new RegExp(`^dedup: ${lines} lines in`));
      return Number(/peak memory (\d+) MiB/.exec(run.stderr)![1]);
    };
    const short = await peak(200_000);
    const long = await peak(2_000_000);
    expect(long - short).toBeLessThan(16);
  });
});
