import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { blockedLayout } from '../src/layouts/blocked.js';
import { partitionedLayout } from '../src/layouts/partitioned.js';
import { standardLayout } from '../src/layouts/standard.js';
import { MAX_HASHES } from '../src/params.js';
import { capacityFor, chooseShape } from '../src/sizing.js';
import { solveShape } from '../src/solve-shape.js';

const layouts = fc.constantFrom(standardLayout, partitionedLayout, blockedLayout);

describe('solveShape', () => {
  it('n and p give the shape create picks; m and p the most keys; n and m the best k', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.double({ min: 1e-9, max: 0.5, noNaN: true }),
        layouts,
        (n, p, layout) => {
          const chosen = chooseShape(n, p, layout);
          const fromNP = solveShape({ capacity: n, fpr: p }, layout);
          expect(fromNP).toEqual({
            capacity: n,
            fpr: chosen.predictedFpr,
            bits: chosen.bits,
            hashes: chosen.hashes,
            bitsPerKey: chosen.bits / n,
          });
          // The bits that hold n keys at p hold at least n keys at p.
          const fromMP = solveShape({ bits: chosen.bits, fpr: p }, layout);
          expect(fromMP.capacity).toBeGreaterThanOrEqual(n);
          expect(fromMP.capacity).toBe(capacityFor(fromMP.bits!, fromMP.hashes, p, layout));
          // No k does better in the same bits than the one n and m choose.
          const fromNM = solveShape({ capacity: n, bits: chosen.bits }, layout);
          expect(fromNM.fpr).toBeLessThanOrEqual(chosen.predictedFpr);
          for (let k = 1; k <= MAX_HASHES; k++) {
            const unit = layout.bitsUnit(k);
            const bits = Math.ceil(chosen.bits / unit) * unit;
            expect(layout.falsePositiveRate(bits, n, k)).toBeGreaterThanOrEqual(fromNM.fpr);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('with k given: the rate of n, m, k; the least m for n, p, k; the bits per key of p, k', () => {
    const rate = solveShape({ capacity: 1000, bits: 9586, hashes: 7 });
    expect(rate.fpr).toBeCloseTo(standardLayout.falsePositiveRate(9586, 1000, 7), 15);
    const least = solveShape({ capacity: 1000, fpr: 0.01, hashes: 7 });
    expect(standardLayout.falsePositiveRate(least.bits!, 1000, 7)).toBeLessThanOrEqual(0.01);
    expect(standardLayout.falsePositiveRate(least.bits! - 1, 1000, 7)).toBeGreaterThan(0.01);
    const most = solveShape({ bits: least.bits!, fpr: 0.01, hashes: 7 });
    expect(most.capacity).toBe(capacityFor(least.bits!, 7, 0.01));
    const perKey = solveShape({ fpr: 0.01, hashes: 7 });
    expect(perKey.capacity).toBeNull();
    expect(perKey.bits).toBeNull();
    expect(perKey.bitsPerKey).toBeCloseTo(9.59, 1);
    // n and k: the m for which k is optimal (m/n = k / ln 2), in the partitioned layout's unit of k.
    const optimal = solveShape({ capacity: 1000, hashes: 7 }, partitionedLayout);
    expect(optimal.bits! % 7).toBe(0);
    expect(optimal.bits).toBeGreaterThanOrEqual(Math.ceil(7000 / Math.LN2));
  });

  it('refuses one value, n with m and p, values out of range, and a rate no m reaches', () => {
    const refusals: [Parameters<typeof solveShape>[0], RegExp][] = [
      [{ capacity: 10 }, /at least two/],
      [{}, /at least two/],
      [{ capacity: 10, bits: 100, fpr: 0.1 }, /over-determine/],
      [{ capacity: 0, fpr: 0.1 }, /capacity must be an integer in \[1, /],
      [{ capacity: 10, fpr: 1 }, /fpr must be in \(0, 1\), got number 1/],
      [{ capacity: 10, bits: 2 ** 49 }, /bits must be an integer in \[1, /],
      [{ capacity: 10, hashes: 65 }, /hashes must be an integer in \[1, 64\]/],
      [{ capacity: 2 ** 52, fpr: 1e-300, hashes: 1 }, /need more than/],
    ];
    for (const [question, message] of refusals) {
      expect(() => solveShape(question)).toThrow(InvalidArgumentError);
      expect(() => solveShape(question)).toThrow(message);
    }
  });
});
