import { describe, expect, it } from 'vitest';
import { blockedLayout, MAX_BLOCKED_BITS } from '../../src/layouts/blocked.js';
import { BLOCK_BITS, blockedFalsePositiveRate, falsePositiveRate } from '../../src/params.js';

describe('blockedLayout', () => {
  it('puts a key in one 512-bit block: geometry (512, 0, m/512), unit 512, at most 2^41 bits', () => {
    expect(blockedLayout.geometry(512 * 10, 7)).toEqual({ range: 512, stride: 0, blocks: 10 });
    expect(blockedLayout.bitsUnit(7)).toBe(BLOCK_BITS);
    expect(MAX_BLOCKED_BITS).toBe(2 ** 41);
  });

  it('inverts the expected fill: 1 − X/m = exp(−λ(1 − (1 − 1/512)^k))', () => {
    const m = 512 * 2_000;
    for (const [k, n] of [
      [6, 100_000],
      [3, 20_000],
    ] as const) {
      const lambda = (n * 512) / m;
      const set = m * -Math.expm1(-lambda * -Math.expm1(k * Math.log1p(-1 / 512)));
      expect(blockedLayout.estimateCount(set, m, k)).toBeCloseTo(n, 4);
    }
    expect(blockedLayout.estimateCount(0, 1024, 3)).toBe(0);
    expect(blockedLayout.estimateCount(1024, 1024, 3)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('blockedFalsePositiveRate', () => {
  it('is the standard rate for a single block, and above it for many (uneven block loads)', () => {
    expect(blockedFalsePositiveRate(512, 40, 6)).toBeCloseTo(falsePositiveRate(512, 40, 6), 12);
    const m = 9_895_936;
    const blocked = blockedFalsePositiveRate(m, 1_000_000, 6);
    expect(blocked).toBeLessThanOrEqual(0.01);
    expect(blocked).toBeGreaterThan(falsePositiveRate(m, 1_000_000, 6));
  });

  it('matches a direct Poisson mixture computed term by term with factorials (small λ)', () => {
    const m = 512 * 50;
    const n = 200; // λ = 4 keys per block
    const k = 5;
    let direct = 0;
    let factorial = 1;
    for (let j = 0; j < 60; j++) {
      if (j > 0) factorial *= j;
      direct += ((Math.exp(-4) * 4 ** j) / factorial) * (1 - (1 - 1 / 512) ** (k * j)) ** k;
    }
    expect(blockedFalsePositiveRate(m, n, k)).toBeCloseTo(direct, 14);
  });

  it('grows with n and is 0 for no keys', () => {
    expect(blockedFalsePositiveRate(512 * 100, 0, 4)).toBe(0);
    let last = 0;
    for (const n of [10, 100, 1_000, 10_000]) {
      const rate = blockedFalsePositiveRate(512 * 100, n, 4);
      expect(rate).toBeGreaterThan(last);
      last = rate;
    }
  });
});
