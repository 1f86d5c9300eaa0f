import { BloomError, FormatError } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { checkGrowth, checkSchedule, MAX_SUB_FILTERS, subCapacity, subFprs } from '../src/schedule.js';

describe('schedule', () => {
  const schedule = checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth: 2, tightening: 0.85 });

  it('grows capacity by g and tightens error by r', () => {
    expect([0, 1, 2, 10].map((i) => subCapacity(schedule, i))).toEqual([1000, 2000, 4000, 1_024_000]);
    const rates = subFprs(schedule, 2);
    expect(rates[0]).toBeCloseTo(0.0015, 15);
    expect(rates[1]! / rates[0]!).toBeCloseTo(0.85, 12);
  });

  it('has error rates that sum to the target, never above it', () => {
    let sum = 0;
    for (const rate of subFprs(schedule, 2000)) sum += rate;
    // Mathematically the partial sums are P·(1 − r^N) < P; adding 2000 doubles may round one ulp above.
    expect(sum).toBeLessThanOrEqual(0.01 * (1 + 1e-12));
    expect(sum).toBeCloseTo(0.01, 12);
  });

  it('computes rates in the order FORMAT.md §3.4 fixes: P × (1 − r), then × r each step, never pow', () => {
    const odd = checkSchedule('T', { initialCapacity: 7, fpr: 0.0123456789, growth: 4, tightening: 0.8765 });
    const rates = subFprs(odd, 40);
    let expected = 0.0123456789 * (1 - 0.8765);
    for (let i = 0; i < 40; i++) {
      expect(Object.is(rates[i], expected)).toBe(true);
      expected *= 0.8765;
    }
  });

  it('refuses a chain that cannot exist: too many sub-filters, a capacity past 2^53, a rate that underflows', () => {
    expect(() => checkGrowth('T', schedule, MAX_SUB_FILTERS + 1, FormatError)).toThrow(FormatError);
    expect(() => checkGrowth('T', schedule, 45, BloomError)).toThrow(/above 2\^53 − 1/);
    const tiny = checkSchedule('T', { initialCapacity: 1, fpr: 1e-300, growth: 2, tightening: 1e-10 });
    expect(() => checkGrowth('T', tiny, 3, FormatError)).toThrow(/below 2\^-1022/);
    expect(() => checkGrowth('T', schedule, 10, FormatError)).not.toThrow();
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
