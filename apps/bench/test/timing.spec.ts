import { describe, expect, it } from 'vitest';
import { median, timed } from '../src/timing.js';

describe('timing helpers', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('timed runs every key when the budget allows and stops at a chunk boundary when it does not', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    let calls = 0;
    const all = timed(keys, 60_000, (k) => {
      calls++;
      return (k as string).endsWith('7');
    });
    expect([all.done, calls, all.hits]).toEqual([5000, 5000, 500]);
    const capped = timed(keys, -1, () => true);
    expect(capped.done).toBe(1024);
  });
});
