import { describe, expect, it } from 'vitest';
import { partitionedLayout } from '../../src/layouts/partitioned.js';
import { partitionedFalsePositiveRate } from '../../src/params.js';

describe('partitionedLayout', () => {
  it('puts position i in slice i of s = m/k slots: geometry (s, s), unit k', () => {
    expect(partitionedLayout.geometry(700, 7)).toEqual({ range: 100, stride: 100 });
    expect(partitionedLayout.bitsUnit(7)).toBe(7);
    expect(partitionedLayout.falsePositiveRate).toBe(partitionedFalsePositiveRate);
  });

  it('inverts the expected fill: n keys set m·(1 − (1 − 1/s)^n) slots', () => {
    for (const [m, k, n] of [
      [10_002, 3, 1_000],
      [1_000_000, 8, 100_000],
    ] as const) {
      const set = m * -Math.expm1(n * Math.log1p(-k / m));
      expect(partitionedLayout.estimateCount(set, m, k)).toBeCloseTo(n, 6);
    }
    expect(partitionedLayout.estimateCount(0, 99, 3)).toBe(0);
    expect(partitionedLayout.estimateCount(99, 99, 3)).toBe(Number.POSITIVE_INFINITY);
  });
});
