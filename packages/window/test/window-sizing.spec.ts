import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';
import { chooseWindowShape, runRate, windowPresence, windowRate } from '../src/window-sizing.js';

describe('window sizing', () => {
  it('runRate is the probability of a run of k heads (against enumeration of every outcome)', () => {
    const fills = [0.1, 0.5, 0.7, 0.3, 0.9, 0.6, 0.45];
    for (const run of [1, 2, 3, 4]) {
      let expected = 0;
      for (let mask = 0; mask < 1 << fills.length; mask++) {
        let p = 1;
        let longest = 0;
        let current = 0;
        for (let i = 0; i < fills.length; i++) {
          const head = (mask >>> i) & 1;
          p *= head ? fills[i]! : 1 - fills[i]!;
          current = head ? current + 1 : 0;
          longest = Math.max(longest, current);
        }
        if (longest >= run) expected += p;
      }
      expect(runRate(fills, run)).toBeCloseTo(expected, 14);
    }
  });

  it('chooses the fewest bits whose oldest-full rate meets the target, for every target', () => {
    for (const fpr of [1e-1, 1e-2, 1e-3, 1e-4, 1e-5]) {
      for (const timed of [false, true]) {
        const shape = chooseWindowShape('test', 100_000, fpr, timed);
        expect(
          windowRate(shape.hashes, shape.ageSlices, shape.sliceBits, shape.generation),
        ).toBeLessThanOrEqual(fpr);
        // One word less per slice breaks the target: s is the smallest.
        expect(
          windowRate(shape.hashes, shape.ageSlices, shape.sliceBits - 64, shape.generation),
        ).toBeGreaterThan(fpr);
      }
    }
  });

  it('holds at most the bits per window key of decred apbf: 22.8 at 1%, 33.6 at 0.1%', () => {
    const perKey = (fpr: number) => WindowBloomFilter.create(1_000_000, fpr).bits / 1_000_000;
    expect(perKey(0.01)).toBeLessThanOrEqual(22.8);
    expect(perKey(0.001)).toBeLessThanOrEqual(33.6);
  });

  it('windowPresence is 1 within the window, the rate past the horizon, and what a filter shows by age between', () => {
    const filter = WindowBloomFilter.create(3000, 0.05, { seed: 11 });
    const { hashes: k, ageSlices: l, sliceBits: s, generation: g } = filter;
    const h = k + l;
    expect(windowPresence(k, l, s, g, 0)).toBe(1);
    expect(windowPresence(k, l, s, g, l)).toBe(1);
    expect(windowPresence(k, l, s, g, l + 1)).toBeLessThan(1);
    expect(windowPresence(k, l, s, g, h)).toBeCloseTo(windowRate(k, l, s, g), 15);
    for (let age = 1; age <= h; age++) {
      expect(windowPresence(k, l, s, g, age)).toBeLessThanOrEqual(
        windowPresence(k, l, s, g, age - 1) + 1e-12,
      );
    }
    // A stream, its keys noted by the generation they were added in, stopped when the newest generation holds
    // g − 1 keys (just before a shift, as the model has it).
    const generationOf: number[] = [];
    let generation = 0;
    let newest = filter.ring().newest;
    for (let i = 0; ; i++) {
      filter.add(`key-${i}`);
      generationOf.push(generation);
      const ring = filter.ring();
      if (ring.newest !== newest) {
        newest = ring.newest;
        generation++;
      }
      if (generation >= h + 2 && ring.keys[ring.newest] === g - 1) break;
    }
    for (let age = 0; age <= h; age++) {
      const keys = generationOf.flatMap((at, i) => (at === generation - age ? [`key-${i}`] : []));
      const present = keys.filter((key) => filter.has(key)).length / keys.length;
      const expected = windowPresence(k, l, s, g, age);
      const sd = Math.sqrt((expected * (1 - expected)) / keys.length);
      expect(Math.abs(present - expected), `age ${age}: ${present} against ${expected}`).toBeLessThanOrEqual(
        5 * sd + 0.01,
      );
    }
  });
});
