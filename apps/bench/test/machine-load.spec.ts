import { describe, expect, it } from 'vitest';
import { goalsMarkdown } from '../src/goals.js';
import { MachineLoad } from '../src/machine-load.js';

describe('MachineLoad', () => {
  it('judges the goals on a quiet machine and marks them not judged past its cores', () => {
    const readings = [0.8, 1.1, 1.3];
    const quiet = new MachineLoad(3, () => readings.shift()).start();
    quiet.stop();
    expect(quiet.busy).toBe(false);
    expect(quiet.describe()).toBe(
      'Load average 0.8 at the start, median 1.1 and at most 1.1 during the run (busy past 3).',
    );
    expect([quiet.verdict(true), quiet.verdict(false), quiet.verdict(null)]).toEqual([
      'met',
      '**short**',
      'n/a',
    ]);

    const loaded = [1.0, 6.9];
    const busy = new MachineLoad(3, () => loaded.shift()).start();
    busy.stop();
    expect(busy.busy).toBe(true);
    expect(busy.describe()).toMatch(
      /median 6\.9 and at most 6\.9 during the run \(busy past 3\): \*\*the machine was busy\*\*/,
    );
    expect(busy.verdict(true)).toBe('not judged: machine busy (met at load 6.9)');
    const table = goalsMarkdown([{ goal: 'standard ≥ 1.3× bloomfilter', met: false, detail: '1.10×' }], busy);
    expect(table).toContain(
      '| standard ≥ 1.3× bloomfilter | not judged: machine busy (short at load 6.9) | 1.10× |',
    );
  });
});
