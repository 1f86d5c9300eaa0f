import { describe, expect, it } from 'vitest';
import { standardLayout } from '../../src/layouts/standard.js';
import { falsePositiveRate } from '../../src/params.js';

describe('standardLayout', () => {
  it('places every position anywhere in [0, m): geometry (m, 0), unit 1', () => {
    expect(standardLayout.geometry(1000, 7)).toEqual({ range: 1000, stride: 0 });
    expect(standardLayout.bitsUnit(7)).toBe(1);
    expect(standardLayout.falsePositiveRate).toBe(falsePositiveRate);
  });

  it('inverts the expected fill: n keys set m·(1 − (1 − 1/m)^{kn}) slots', () => {
    for (const [m, k, n] of [
      [10_000, 3, 1_000],
      [1_000_000, 7, 100_000],
    ] as const) {
      const set = m * -Math.expm1(k * n * Math.log1p(-1 / m));
      expect(standardLayout.estimateCount(set, m, k)).toBeCloseTo(n, 6);
    }
    expect(standardLayout.estimateCount(0, 100, 3)).toBe(0);
    expect(standardLayout.estimateCount(100, 100, 3)).toBe(Number.POSITIVE_INFINITY);
  });
});
