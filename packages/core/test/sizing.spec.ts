import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import type { Layout } from '../src/layout.js';
import { blockedLayout } from '../src/layouts/blocked.js';
import { partitionedLayout } from '../src/layouts/partitioned.js';
import { standardLayout } from '../src/layouts/standard.js';
import { falsePositiveRate, MAX_HASHES, optimalBits, partitionedFalsePositiveRate } from '../src/params.js';
import { capacityFor, chooseShape } from '../src/sizing.js';

describe('capacityFor', () => {
  it('returns the largest n whose rate is at most p', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 10_000_000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 1e-6, max: 0.5, noNaN: true }),
        fc.constantFrom(standardLayout, partitionedLayout),
        (m, k, p, layout) => {
          const rate = layout === standardLayout ? falsePositiveRate : partitionedFalsePositiveRate;
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
        const shape = chooseShape(n, p, standardLayout);
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
        const shape = chooseShape(n, p, partitionedLayout);
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
    expect(() => chooseShape(0, 0.01, standardLayout, 'X.create')).toThrow(
      /X.create: capacity must be an integer in \[1, /,
    );
    expect(() => chooseShape(10, 0, standardLayout, 'X.create')).toThrow(
      /X.create: fpr must be in \(0, 1\), got number 0/,
    );
    expect(() => chooseShape(10, Number.NaN)).toThrow(InvalidArgumentError);
    expect(() => chooseShape(1.5, 0.1)).toThrow(InvalidArgumentError);
    expect(() => chooseShape(2 ** 50, 1e-30)).toThrow(/needs more than 2\^48 bits/);
  });

  it('always ends, even for capacities near 2^53 (the search works on integers below 2^48)', () => {
    expect(() => chooseShape(2 ** 53 - 1, 0.5)).toThrow(InvalidArgumentError);
    expect(chooseShape(2 ** 47, 0.5).bits).toBeLessThanOrEqual(2 ** 48);
    expect(() => chooseShape(2 ** 53 - 1, 1e-12)).toThrow(InvalidArgumentError);
    expect(capacityFor(2 ** 48, 1, 0.5)).toBeGreaterThan(2 ** 47);
  });
});

describe.each([
  ['standard', standardLayout],
  ['partitioned', partitionedLayout],
  ['blocked', blockedLayout],
] as const)('chooseShape with a layout lower bound (%s)', (_name, layout) => {
  // The full search: the same layout without its bound, so every k from 1 to 64 is searched in ascending order.
  const fullSearch: { -readonly [K in keyof Layout]: Layout[K] } = { ...layout };
  delete fullSearch.bitsAtLeast;

  it('gives the shape of the full search over every k, on a grid of n and p', () => {
    for (const n of [1, 7, 100, 2_500, 60_000, 250_000, 1_000_000, 9_999_991]) {
      for (const p of [0.5, 0.1, 0.01, 1e-3, 1e-4, 1e-6]) {
        expect(chooseShape(n, p, layout), `n ${n}, p ${p}`).toEqual(chooseShape(n, p, fullSearch));
      }
    }
  });

  it('gives the shape of the full search for random n and p', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.double({ min: 1e-9, max: 0.6, noNaN: true }),
        (n, p) => {
          expect(chooseShape(n, p, layout)).toEqual(chooseShape(n, p, fullSearch));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the bound never exceeds the least m that meets p, for any k', () => {
    for (const n of [1, 100, 60_000, 1_000_000]) {
      for (const p of [0.3, 0.01, 1e-4]) {
        for (let k = 1; k <= MAX_HASHES; k += 3) {
          const bound = layout.bitsAtLeast!(n, p, k);
          // The largest multiple of the unit below the bound must not meet p.
          const unit = layout.bitsUnit(k);
          const below = Math.floor(bound / unit) * unit;
          if (below >= unit)
            expect(layout.falsePositiveRate(below, n, k), `n ${n} p ${p} k ${k}`).toBeGreaterThan(p);
        }
      }
    }
  });
});
