import { BloomError, FormatError, InvalidArgumentError } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { ScalableBloomFilter } from '../src/index.js';
import {
  chainAt,
  checkGrowth,
  checkSchedule,
  DEFAULT_GROWTH,
  DEFAULT_TIGHTENING,
  MAX_SUB_FILTERS,
  subCapacities,
  subCapacity,
  subFilterShape,
  subFprs,
} from '../src/schedule.js';

describe('schedule', () => {
  const schedule = checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth: 2, tightening: 0.85 });

  it('grows capacity by g and tightens error by r', () => {
    expect([0, 1, 2, 10].map((i) => subCapacity(schedule, i))).toEqual([1000, 2000, 4000, 1_024_000]);
    expect(DEFAULT_GROWTH).toBe(1.5);
    expect(DEFAULT_TIGHTENING).toBe(0.93);
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

  it('computes capacities as FORMAT.md §3.4 fixes: c_{i+1} = ⌈c_i × g⌉ in binary64, each larger than the last', () => {
    const fractional = checkSchedule('T', { initialCapacity: 1, fpr: 0.01, growth: 1.5, tightening: 0.9 });
    expect(subCapacities(fractional, 10)).toEqual([1, 2, 3, 5, 8, 12, 18, 27, 41, 62]);
    const slowest = checkSchedule('T', { initialCapacity: 1, fpr: 0.01, growth: 1.125, tightening: 0.9 });
    const capacities = subCapacities(slowest, 300);
    let expected = 1;
    for (const capacity of capacities) {
      expect(capacity).toBe(expected);
      expected = Math.ceil(expected * 1.125);
    }
    for (let i = 1; i < capacities.length; i++) expect(capacities[i]).toBeGreaterThan(capacities[i - 1]!);
    // A growth that is not a multiple of 1/8 rounds each product first, then takes the ceiling.
    const odd = checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth: 1.2, tightening: 0.9 });
    expect(subCapacities(odd, 4)).toEqual([1000, 1200, 1440, 1728]);
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
    // The slowest growth from 1 passes 2^53 well inside the sub-filter limit.
    const slowest = checkSchedule('T', { initialCapacity: 1, fpr: 0.01, growth: 1.125, tightening: 0.999 });
    expect(() => checkGrowth('T', slowest, MAX_SUB_FILTERS, FormatError)).toThrow(/above 2\^53 − 1/);
    const tiny = checkSchedule('T', { initialCapacity: 1, fpr: 1e-300, growth: 2, tightening: 1e-10 });
    expect(() => checkGrowth('T', tiny, 3, FormatError)).toThrow(/below 2\^-1022/);
    expect(() => checkGrowth('T', schedule, 10, FormatError)).not.toThrow();
  });

  it('names bad parameters and their ranges', () => {
    for (const growth of [1, 1.1, 4.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() =>
        checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth, tightening: 0.85 }),
      ).toThrow(`T: growth must be a number in [1.125, 4], got number ${growth}`);
    }
    expect(() =>
      checkSchedule('T', { initialCapacity: 1000, fpr: 0.01, growth: '2' as never, tightening: 0.85 }),
    ).toThrow('T: growth must be a number in [1.125, 4], got string');
    expect(checkSchedule('T', { initialCapacity: 1, fpr: 0.01, growth: 1.125, tightening: 0.5 }).growth).toBe(
      1.125,
    );
    expect(() =>
      checkSchedule('T', { initialCapacity: 0.5, fpr: 0.01, growth: 2, tightening: 0.85 }),
    ).toThrow(/initialCapacity/);
  });
});

describe('chainAt', () => {
  it('is the chain a filter holds after as many distinct adds (sub-filters and bits)', () => {
    for (const [n0, growth, tightening, keys] of [
      [100, 1.5, 0.93, 1],
      [100, 1.5, 0.93, 100],
      [100, 1.5, 0.93, 101],
      [1000, 2, 0.85, 50_000],
      [37, 1.125, 0.5, 9_999],
    ] as const) {
      const schedule = { initialCapacity: n0, fpr: 1e-9, growth, tightening };
      const filter = ScalableBloomFilter.create(n0, 1e-9, { growth, tightening, seed: 3 });
      for (let i = 0; i < keys; i++) filter.add(`key ${i}`);
      const chain = chainAt(schedule, keys);
      expect(chain.map((_, i) => subFilterShape(schedule, i))).toEqual(chain);
      expect([filter.filterCount, filter.bits]).toEqual([
        chain.length,
        chain.reduce((sum, shape) => sum + shape.bits, 0),
      ]);
    }
  });

  it('refuses a bad schedule, a bad size and a chain past 512 sub-filters, naming each', () => {
    const schedule = { initialCapacity: 1, fpr: 0.01, growth: 1.5, tightening: 0.93 };
    expect(() => chainAt({ ...schedule, growth: 5 }, 10)).toThrow(
      /^chainAt: growth must be a number in \[1.125, 4\]/,
    );
    expect(() => chainAt({ ...schedule, tightening: 1 }, 10)).toThrow(
      /^chainAt: tightening must be in \(0, 1\)/,
    );
    expect(() => chainAt(schedule, 0)).toThrow(/^chainAt: keys must be an integer in \[1, /);
    expect(() => chainAt({ ...schedule, growth: 1.125 }, 2 ** 53 - 1)).toThrow(InvalidArgumentError);
    expect(() => chainAt({ ...schedule, growth: 1.125 }, 2 ** 53 - 1)).toThrow(
      /^chainAt: (.*512 sub-filters|.*2\^53|.*2\^-1022|sub-filter \d+ of \d+ keys: capacity \d+ at fpr .* needs more than 2\^48 bits)/,
    );
  });
});
