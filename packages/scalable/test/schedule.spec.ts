import { describe, expect, it } from 'vitest';
import { checkSchedule, subCapacity, subFpr } from '../src/schedule.js';

describe('schedule', () => {
  const schedule = checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth: 2, tightening: 0.85 });

  it('grows capacity by g and tightens error by r', () => {
    expect([0, 1, 2, 10].map((i) => subCapacity(schedule, i))).toEqual([1000, 2000, 4000, 1_024_000]);
    expect(subFpr(schedule, 0)).toBeCloseTo(0.0015, 15);
    expect(subFpr(schedule, 1) / subFpr(schedule, 0)).toBeCloseTo(0.85, 12);
  });

  it('has error rates that sum to the target, never above it', () => {
    let sum = 0;
    for (let i = 0; i < 2000; i++) sum += subFpr(schedule, i);
    // Mathematically the partial sums are P·(1 − r^N) < P; adding 2000 doubles may round one ulp above.
    expect(sum).toBeLessThanOrEqual(0.01 * (1 + 1e-12));
    expect(sum).toBeCloseTo(0.01, 12);
  });

  it('names bad parameters and their ranges', () => {
    expect(() =>
      checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth: 3 as never, tightening: 0.85 }),
    ).toThrow('T: growth must be one of 2, 4, got number 3');
    expect(() =>
      checkSchedule('T', { initialCapacity: 0.5, fpr: 0.01, growth: 2, tightening: 0.85 }),
    ).toThrow(/initialCapacity/);
  });
});
