import { describe, expect, it } from 'vitest';
import { prng } from '../src/keys.js';
import { chiSquare, fprMoments, occupancyVariance, upperBoundCount } from '../src/stats.js';

describe('occupancyVariance', () => {
  it('matches a simulation of balls into slots', () => {
    const next = prng(5);
    const slots = 500;
    const draws = 400;
    const runs = 4000;
    const occupied: number[] = [];
    for (let r = 0; r < runs; r++) {
      const seen = new Uint8Array(slots);
      for (let d = 0; d < draws; d++) seen[next() % slots] = 1;
      occupied.push(seen.reduce((a, b) => a + b, 0));
    }
    const mean = occupied.reduce((a, b) => a + b, 0) / runs;
    const variance = occupied.reduce((a, b) => a + (b - mean) ** 2, 0) / (runs - 1);
    expect(mean).toBeCloseTo(slots * (1 - (1 - 1 / slots) ** draws), 0);
    // The sample variance of 4000 runs is within ±10% of the truth with overwhelming probability.
    expect(variance / occupancyVariance(slots, draws)).toBeGreaterThan(0.9);
    expect(variance / occupancyVariance(slots, draws)).toBeLessThan(1.1);
  });
});

describe('fprMoments', () => {
  it('gives the classical rate as the mean', () => {
    const { mean } = fprMoments({ layout: 'standard', bits: 1e6, hashes: 7, n: 1e5 });
    expect(mean).toBeCloseTo((1 - Math.exp(-0.7)) ** 7, 6);
  });
});

describe('upperBoundCount / chiSquare', () => {
  it('adds 3.09 standard deviations', () => {
    expect(upperBoundCount(0.01, 1e6)).toBeCloseTo(10_000 + 3.090232 * Math.sqrt(9900) + 0.5, 6);
    expect(chiSquare([10, 10, 10, 10])).toBe(0);
    expect(chiSquare([20, 0])).toBe(20);
  });
});
