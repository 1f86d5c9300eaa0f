import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The suite's recorded runs (docs/results/suite-timings.json, written by scripts/suite-timings.mjs from a run's
// report): every test they list within a third of its limit, and the README quoting each run's time as recorded.

interface RecordedTest {
  readonly file: string;
  readonly test: string;
  readonly seconds: number;
  readonly limitSeconds: number;
}

interface RecordedRun {
  readonly measured: string;
  readonly seconds: number;
  readonly passed: number;
  readonly failed: number;
  readonly loadAverage1m?: { readonly min: number; readonly median: number; readonly max: number };
  readonly slowest: readonly RecordedTest[];
  readonly closestToLimit: readonly RecordedTest[];
}

const root = new URL('../../', import.meta.url).pathname;
const runs = JSON.parse(readFileSync(`${root}docs/results/suite-timings.json`, 'utf8')) as Record<
  string,
  RecordedRun
>;

describe('the recorded runs of the suite', () => {
  it('hold an idle run and one beside two CPU-bound processes and a build, each with every test passed', () => {
    expect(Object.keys(runs)).toEqual(expect.arrayContaining(['idle', 'loaded']));
    // Two busy loops and a loop of builds keep this 2-core machine's 1-minute load average near 7 (at most 16).
    expect(runs.loaded!.loadAverage1m!.median).toBeGreaterThanOrEqual(6);
    expect(runs.loaded!.seconds).toBeGreaterThan(runs.idle!.seconds);
    for (const run of Object.values(runs)) {
      expect(run.failed).toBe(0);
      expect(run.passed).toBeGreaterThan(1000);
      expect(run.slowest.length).toBe(10);
    }
  });

  it('list every test within a third of its limit: the slowest ten and the ten closest to their limits', () => {
    for (const run of Object.values(runs)) {
      for (const test of [...run.slowest, ...run.closestToLimit]) {
        expect(test.seconds, `${test.file}: ${test.test}`).toBeLessThanOrEqual(test.limitSeconds / 3);
      }
    }
  });

  it('are the times the README gives for the test line (its whole time, in seconds)', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    for (const run of Object.values(runs)) {
      expect(readme).toContain(`${run.seconds.toLocaleString('en-US')} s`);
    }
  });
});
