import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import {
  capacityFor,
  chooseShape,
  estimateCount,
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

describe('capacityFor', () => {
  it('returns the largest n whose rate is at most p', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 10_000_000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 1e-6, max: 0.5, noNaN: true }),
        fc.constantFrom('standard' as const, 'partitioned' as const),
        (m, k, p, layout) => {
          const rate = layout === 'standard' ? falsePositiveRate : partitionedFalsePositiveRate;
          const n = capacityFor(m, k, p, layout);
          if (n > 0) expect(rate(m, n, k)).toBeLessThanOrEqual(p);
          expect(rate(m, n + 1, k)).toBeGreaterThan(p);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('chooseShape', () => {
  const cases = fc.tuple(
    fc.integer({ min: 1, max: 10_000_000 }),
    fc.oneof(fc.constantFrom(0.1, 0.01, 0.001, 1e-6), fc.double({ min: 1e-9, max: 0.9, noNaN: true })),
  );

  it('standard: predicted rate at most p, and no smaller m reaches p with any k', () => {
    fc.assert(
      fc.property(cases, ([n, p]) => {
        const shape = chooseShape(n, p, 'standard');
        expect(shape.predictedFpr).toBeLessThanOrEqual(p);
        expect(falsePositiveRate(shape.bits, n, shape.hashes)).toBeLessThanOrEqual(p);
        if (shape.bits > 1) {
          for (let k = 1; k <= MAX_HASHES; k++)
            expect(falsePositiveRate(shape.bits - 1, n, k)).toBeGreaterThan(p);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('partitioned: m a multiple of k, rate at most p, and no smaller k·s reaches p', () => {
    fc.assert(
      fc.property(cases, ([n, p]) => {
        const shape = chooseShape(n, p, 'partitioned');
        expect(shape.bits % shape.hashes).toBe(0);
        expect(partitionedFalsePositiveRate(shape.bits, n, shape.hashes)).toBeLessThanOrEqual(p);
        for (let k = 1; k <= MAX_HASHES; k++) {
          const s = Math.floor((shape.bits - 1) / k);
          if (s >= 1) expect(partitionedFalsePositiveRate(k * s, n, k)).toBeGreaterThan(p);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stays within 0.5% of the optimum bits per key for the usual targets', () => {
    for (const p of [0.1, 0.01, 0.001, 0.0001]) {
      const n = 1_000_000;
      const shape = chooseShape(n, p);
      expect(shape.bits / optimalBits(n, p)).toBeLessThan(1.005);
      expect(shape.bits / optimalBits(n, p)).toBeGreaterThanOrEqual(0.999);
    }
  });

  it('names the API, the parameter and its range in errors', () => {
    expect(() => chooseShape(0, 0.01, 'standard', 'X.create')).toThrow(
      /X.create: capacity must be an integer in \[1, /,
    );
    expect(() => chooseShape(10, 0, 'standard', 'X.create')).toThrow(
      /X.create: fpr must be in \(0, 1\), got number 0/,
    );
    expect(() => chooseShape(10, Number.NaN)).toThrow(InvalidArgumentError);
    expect(() => chooseShape(1.5, 0.1)).toThrow(InvalidArgumentError);
    expect(() => chooseShape(2 ** 50, 1e-30)).toThrow(/needs more than 2\^48 bits/);
  });
});

describe('estimateCount', () => {
  it('inverts the expected fill: n keys set m·(1 − (1 − 1/m)^{kn}) positions', () => {
    const cases: [number, number, number][] = [
      [10_000, 3, 1_000],
      [1_000_000, 7, 100_000],
    ];
    for (const [m, k, n] of cases) {
      const set = m * -Math.expm1(k * n * Math.log1p(-1 / m));
      expect(estimateCount(set, m, k)).toBeCloseTo(n, 6);
      const s = m / k;
      const setPartitioned = m * -Math.expm1(n * Math.log1p(-1 / s));
      expect(estimateCount(setPartitioned, m, k, 'partitioned')).toBeCloseTo(n, 6);
    }
    expect(estimateCount(0, 100, 3)).toBe(0);
    expect(estimateCount(100, 100, 3)).toBe(Number.POSITIVE_INFINITY);
  });
});
