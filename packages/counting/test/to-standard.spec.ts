import { CounterArray } from '@bloomkit/core/kit';
import { describe, expect, it } from 'vitest';
import { toStandardFilter } from '../src/to-standard.js';

describe('toStandardFilter', () => {
  it('sets bit i exactly where counter i is non-zero and keeps shape and facts', () => {
    const counters = new CounterArray(20, 8);
    for (const [i, v] of [
      [0, 1],
      [7, 200],
      [19, 3],
    ] as const)
      counters.set(i, v);
    const standard = toStandardFilter(counters, { bits: 20, hashes: 2, seed: 5 }, { count: 4 });
    const payload = standard.serialize().subarray(64, -4);
    expect(Array.from(payload)).toEqual([0b1000_0001, 0, 0b0000_1000]);
    expect([standard.bits, standard.hashes, standard.seed, standard.count]).toEqual([20, 2, 5, 4]);
  });
});
