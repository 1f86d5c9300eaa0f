import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import {
  blockedFalsePositiveRate,
  falsePositiveRate,
  MAX_HASHES,
  optimalBits,
  optimalHashes,
  partitionedFalsePositiveRate,
} from '../src/params.js';

describe('falsePositiveRate', () => {
  it('reproduces the classic m/n–k table (m/n 2..32, k 1..8) to 3 significant digits', () => {
    // The table's entries are the asymptotic (1 − e^{−k/c})^k (Fan et al. 2000, Table I; Cao's "Bloom filters —
    // the math"); the exact formula converges to them as m grows (here n = 10^6).
    const n = 1_000_000;
    for (let c = 2; c <= 32; c++) {
      for (let k = 1; k <= 8; k++) {
        const table = (1 - Math.exp(-k / c)) ** k;
        expect(falsePositiveRate(c * n, n, k).toPrecision(3), `m/n=${c} k=${k}`).toBe(table.toPrecision(3));
      }
    }
  });

  it('matches published entries of the table', () => {
    const n = 1_000_000;
    const published: [number, number, string][] = [
      [2, 1, '0.393'],
      [2, 2, '0.400'],
      [4, 3, '0.147'],
      [8, 3, '0.0306'],
      [8, 6, '0.0216'],
      [10, 7, '0.00819'],
      [16, 8, '0.000574'],
    ];
    for (const [c, k, value] of published) expect(falsePositiveRate(c * n, n, k).toPrecision(3)).toBe(value);
  });

  it('is exact for tiny filters: one bit, one hash, one key', () => {
    expect(falsePositiveRate(1, 1, 1)).toBe(1);
    expect(falsePositiveRate(2, 1, 1)).toBeCloseTo(0.5, 15);
    expect(falsePositiveRate(4, 2, 1)).toBeCloseTo(1 - 0.75 ** 2, 15);
    expect(falsePositiveRate(100, 0, 3)).toBe(0);
  });

  it('keeps precision when 1/m is tiny (m = 2^40)', () => {
    const m = 2 ** 40;
    const n = m / 10;
    expect(falsePositiveRate(m, n, 7)).toBeCloseTo((1 - Math.exp(-0.7)) ** 7, 12);
  });

  it('partitioned rate: (1 − (1 − 1/s)^n)^k with s = ⌈m/k⌉, above the standard rate', () => {
    expect(partitionedFalsePositiveRate(12, 2, 3)).toBeCloseTo((1 - 0.75 ** 2) ** 3, 15);
    expect(partitionedFalsePositiveRate(10_000, 1000, 7)).toBeGreaterThan(falsePositiveRate(10_000, 1000, 7));
  });
});

describe('optimalBits / optimalHashes', () => {
  it('gives −n ln p / (ln 2)^2 bits and (m/n) ln 2 hashes', () => {
    expect(optimalBits(1_000_000, 0.01)).toBe(9_585_059);
    expect(optimalBits(1_000_000, 0.001)).toBe(14_377_588);
    expect(optimalHashes(9_585_059, 1_000_000)).toBe(7);
    expect(optimalHashes(10, 1000)).toBe(1);
    expect(optimalHashes(2 ** 40, 1)).toBe(MAX_HASHES);
  });

  it('rejects bad arguments naming the parameter and range', () => {
    expect(() => optimalBits(0, 0.1)).toThrow(/optimalBits: n must be an integer in \[1, /);
    expect(() => optimalBits(10, 1)).toThrow(/optimalBits: p must be in \(0, 1\), got number 1/);
    expect(() => optimalHashes(0, 1)).toThrow(InvalidArgumentError);
  });
});

describe('blockedFalsePositiveRate by products', () => {
  /** The sum with every Poisson weight from its logarithm (lgamma by a sum of logs): the reference. */
  function inLogSpace(m: number, n: number, k: number): number {
    const lambda = n / (m / 512);
    let logWeight = -lambda;
    let sum = 0;
    for (let j = 0; j <= Math.ceil(lambda + 12 * Math.sqrt(lambda) + 40); j++) {
      if (j > 0) logWeight += Math.log(lambda) - Math.log(j);
      sum += Math.exp(logWeight) * (1 - (1 - 1 / 512) ** (k * j)) ** k;
    }
    return Math.min(1, sum);
  }

  it('equals the sum in log space to 1e-11, relative, over loads, sizes and k', () => {
    for (const blocks of [2, 7, 100, 4_096, 1_000_003]) {
      for (const load of [0.01, 1, 20, 52.7, 300, 650]) {
        for (const k of [1, 2, 6, 11, 23, 64]) {
          const m = blocks * 512;
          const n = Math.max(1, Math.round(load * blocks));
          const reference = inLogSpace(m, n, k);
          const got = blockedFalsePositiveRate(m, n, k);
          expect(Math.abs(got - reference), `blocks ${blocks} load ${load} k ${k}`).toBeLessThanOrEqual(
            1e-11 * reference + 1e-300,
          );
        }
      }
    }
  });
});
