import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

/** What a window of the last `window` lines prints: a line whose previous sighting is more than `window` lines back. */
function windowDedup(lines: readonly string[], window: number): string[] {
  const last = new Map<string, number>();
  const out: string[] = [];
  lines.forEach((line, i) => {
    const previous = last.get(line);
    if (previous === undefined || i - previous > window) out.push(line);
    last.set(line, i);
  });
  return out;
}

describe('dedup --window', () => {
  it('--window N: a repeat within the last N lines is dropped; one seen long before is printed again', () => {
    const lines: string[] = [];
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 3_000; i++) lines.push(`https://site.example/${i}`);
    for (let i = 0; i < 2_000; i++) lines.push(`https://site.example/${i % 50}`);
    const run = bloomkit(['dedup', '--window', '1000', '--fpr', '1e-9'], {
      cwd: dir,
      input: `${lines.join('\n')}\n`,
    });
    expect(run.status).toBe(0);
    // Every round is printed again (each line's previous sighting is 3,000 lines back, past the horizon), and the
    // last 2,000 lines repeat 50 lines within the window: only their first sightings since round 3 print.
    const expected = windowDedup(lines, 1_000);
    expect(run.stdout).toBe(`${expected.join('\n')}\n`);
  });

  it('--window 1h --capacity N with --state: the window carries over between runs', () => {
    const state = join(dir, 'hour.bf');
    const input = `${Array.from({ length: 500 }, (_, i) => `event-${i}`).join('\n')}\n`;
    const first = bloomkit(['dedup', '--window', '1h', '--capacity', '10000', '--state', state], {
      cwd: dir,
      input,
    });
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(input);
    const second = bloomkit(['dedup', '--state', state], { cwd: dir, input: `${input}event-new\n` });
    expect(second.stdout).toBe('event-new\n');
    const info = bloomkit(['info', state, '--json'], { cwd: dir });
    const facts = JSON.parse(info.stdout);
    expect(facts.kind).toBe('window');
    expect(facts.window).toMatchObject({
      keys: 10_000,
      durationMs: 3_600_000,
      reachKeys: 501,
      shortened: false,
    });
    expect(Date.parse(facts.window.reachSince)).toBeLessThanOrEqual(Date.now() - 3_600_000);
    const scalable = join(dir, 'scalable.bf');
    bloomkit(['dedup', '--state', scalable], { cwd: dir, input });
    const mismatch = bloomkit(['dedup', '--window', '100', '--state', scalable], { cwd: dir, input });
    expect(mismatch.status).toBe(2);
    expect(mismatch.stderr).toMatch(/holds a scalable filter, not window/);
  });

  it('refuses contradictory flags with a message that says what to give', () => {
    const cases: [string[], RegExp][] = [
      [['--window', '1h'], /a time window needs --capacity N/],
      [['--window', '100', '--capacity', '5'], /--capacity goes with a time window/],
      [['--window', '100', '--fixed'], /--window and --fixed contradict/],
      [['--window', '100', '--kind', 'blocked'], /--window makes a window filter, not --kind blocked/],
      [['--window', '0'], /--window must be a number of lines .* or a duration/],
      [['--window', '5x'], /--window must be/],
      [['--kind', 'window'], /a window filter is sized by --window N/],
    ];
    for (const [args, message] of cases) {
      const run = bloomkit(['dedup', ...args], { cwd: dir, input: 'a\n' });
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });

  it('create --kind window, add, has and info work on a window file', () => {
    const file = join(dir, 'w.bf');
    expect(
      bloomkit(['create', file, '--kind', 'window', '--capacity', '1000', '--fpr', '0.01'], { cwd: dir })
        .status,
    ).toBe(0);
    const keys = Array.from({ length: 5_000 }, (_, i) => `k${i}`).join('\n');
    bloomkit(['add', file, '--from', '-'], { cwd: dir, input: `${keys}\n` });
    expect(bloomkit(['has', file, 'k4999'], { cwd: dir }).status).toBe(0);
    const info = bloomkit(['info', file], { cwd: dir }).stdout;
    expect(info).toMatch(/window\s+1,000 keys\n/);
    expect(info).toMatch(/holds now\s+the last [\d,]+ keys\n/);
    expect(info).toMatch(/forgets after\s+[\d,]+ keys\n/);
    const explicit = bloomkit(
      ['create', join(dir, 'x.bf'), '--kind', 'window', '--bits', '100', '--hashes', '3'],
      {
        cwd: dir,
      },
    );
    expect(explicit.stderr).toMatch(/sized by --capacity and --fpr/);
  });
});
