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
  it('--window N: a repeat within the last N lines is dropped; one seen long before is printed again', async () => {
    const lines: string[] = [];
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 3_000; i++) lines.push(`https://site.example/${i}`);
    for (let i = 0; i < 2_000; i++) lines.push(`https://site.example/${i % 50}`);
    const run = await bloomkit(['dedup', '--window', '1000', '--fpr', '1e-9'], {
      cwd: dir,
      input: `${lines.join('\n')}\n`,
    });
    expect(run.status).toBe(0);
    // Every round is printed again (each line's previous sighting is 3,000 lines back, past the horizon), and the
    // last 2,000 lines repeat 50 lines within the window: only their first sightings since round 3 print.
    const expected = windowDedup(lines, 1_000);
    expect(run.stdout).toBe(`${expected.join('\n')}\n`);
  });

  it('--window 1h --capacity N with --state: the window carries over between runs', async () => {
    const state = join(dir, 'hour.bf');
    const input = `${Array.from({ length: 500 }, (_, i) => `event-${i}`).join('\n')}\n`;
    const first = await bloomkit(['dedup', '--window', '1h', '--capacity', '10000', '--state', state], {
      cwd: dir,
      input,
    });
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(input);
    const second = await bloomkit(['dedup', '--state', state], { cwd: dir, input: `${input}event-new\n` });
    expect(second.stdout).toBe('event-new\n');
    const info = await bloomkit(['info', state, '--json'], { cwd: dir });
    const facts = JSON.parse(info.stdout);
    expect(facts.kind).toBe('window');
    expect(facts.facts).toMatchObject({
      windowKeys: 10_000,
      durationMs: 3_600_000,
      reachKeys: 501,
      shortened: false,
    });
    expect(Date.parse(facts.facts.reachSince)).toBeLessThanOrEqual(Date.now() - 3_600_000);
    const scalable = join(dir, 'scalable.bf');
    await bloomkit(['dedup', '--state', scalable], { cwd: dir, input });
    const mismatch = await bloomkit(['dedup', '--window', '100', '--state', scalable], { cwd: dir, input });
    expect(mismatch.status).toBe(2);
    expect(mismatch.stderr).toMatch(/holds a scalable filter, not window/);
  });

  it('an existing --state is never silently used for another --window', async () => {
    const state = join(dir, 'sized.bf');
    const input = 'a\nb\n';
    expect(
      (await bloomkit(['dedup', '--window', '1000', '--state', state], { cwd: dir, input })).status,
    ).toBe(0);
    const cases: [string[], string][] = [
      [['--window', '500'], 'holds the last 1000 lines, but --window asks for the last 500 lines'],
      [
        ['--window', '1h', '--capacity', '1000'],
        'holds the last 1000 lines, but --window asks for a window of 3600000 ms for 1000 lines',
      ],
    ];
    for (const [args, message] of cases) {
      const run = await bloomkit(['dedup', ...args, '--state', state], { cwd: dir, input: 'c\n' });
      expect([run.status, run.stdout], args.join(' ')).toEqual([2, '']);
      expect(run.stderr).toContain(`${state}: ${message}; leave out --window to go on with the state's`);
    }
    const timed = join(dir, 'timed.bf');
    await bloomkit(['dedup', '--window', '1h', '--capacity', '1000', '--state', timed], { cwd: dir, input });
    const other = await bloomkit(['dedup', '--window', '2h', '--capacity', '1000', '--state', timed], {
      cwd: dir,
      input,
    });
    expect(other.stderr).toContain(
      'holds a window of 3600000 ms for 1000 lines, but --window asks for a window of 7200000 ms',
    );
    const more = await bloomkit(['dedup', '--window', '1h', '--capacity', '5000', '--state', timed], {
      cwd: dir,
      input,
    });
    expect(more.status).toBe(2);
    // The same window, or none given: the state goes on.
    expect(
      (await bloomkit(['dedup', '--window', '1000', '--state', state], { cwd: dir, input: 'a\nc\n' })).stdout,
    ).toBe('c\n');
    expect((await bloomkit(['dedup', '--state', state], { cwd: dir, input: 'c\nd\n' })).stdout).toBe('d\n');
  });

  it('--window 1m --state across clock steps: 60 s behind, then on time, then 2 h ahead; every file it writes it reads', async () => {
    /** The environment of a run whose clock is `ms` off the machine's. */
    const skewed = (ms: number) => ({
      ...process.env,
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(`const now = Date.now; Date.now = () => now() + (${ms});`)}`,
    });
    const state = join(dir, 'skewed.bf');
    const lines = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `event-${from + i}`).join('\n') + '\n';
    const args = ['dedup', '--window', '1m', '--capacity', '200', '--state', state];
    for (const [offset, from, to] of [
      [0, 0, 150],
      [-60_000, 150, 600],
      [0, 600, 900],
      [-5_000, 900, 1_000],
    ] as const) {
      const run = await bloomkit(args, { cwd: dir, input: lines(from, to), env: skewed(offset) });
      expect([offset, run.status, run.stderr]).toEqual([offset, 0, '']);
      expect(run.stdout).toBe(lines(from, to));
      const info = await bloomkit(['info', '--json', state], { cwd: dir });
      expect(info.status).toBe(0);
    }
    // The last 200 lines came within the window's minute of the filter's time: all dropped as repeats.
    const again = await bloomkit(args, { cwd: dir, input: lines(800, 1_000) });
    expect([again.status, again.stdout, again.stderr]).toEqual([0, '', '']);
    // A clock 2 h ahead ends every generation once: the state stays valid, and on time again it goes on.
    const ahead = await bloomkit(args, { cwd: dir, input: lines(1_000, 1_100), env: skewed(7_200_000) });
    expect([ahead.status, ahead.stderr]).toEqual([0, '']);
    const back = await bloomkit(args, { cwd: dir, input: lines(1_000, 1_100) });
    expect([back.status, back.stdout, back.stderr]).toEqual([0, '', '']);
  });

  it('refuses contradictory flags with a message that says what to give', async () => {
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
      const run = await bloomkit(['dedup', ...args], { cwd: dir, input: 'a\n' });
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });

  it('create --kind window, add, has and info work on a window file', async () => {
    const file = join(dir, 'w.bf');
    expect(
      (
        await bloomkit(['create', file, '--kind', 'window', '--capacity', '1000', '--fpr', '0.01'], {
          cwd: dir,
        })
      ).status,
    ).toBe(0);
    const keys = Array.from({ length: 5_000 }, (_, i) => `k${i}`).join('\n');
    await bloomkit(['add', file, '--from', '-'], { cwd: dir, input: `${keys}\n` });
    expect((await bloomkit(['has', file, 'k4999'], { cwd: dir })).status).toBe(0);
    const info = (await bloomkit(['info', file], { cwd: dir })).stdout;
    expect(info).toMatch(/window\s+1,000 keys\n/);
    expect(info).toMatch(/holds now\s+the last [\d,]+ keys\n/);
    expect(info).toMatch(/forgets after\s+[\d,]+ keys\n/);
    const explicit = await bloomkit(
      ['create', join(dir, 'x.bf'), '--kind', 'window', '--bits', '100', '--hashes', '3'],
      {
        cwd: dir,
      },
    );
    expect(explicit.stderr).toMatch(/sized by --capacity and --fpr/);
  });
});
