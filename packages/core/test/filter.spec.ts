import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { DEFAULT_SEED, resolveSeed } from '../src/filter.js';

describe('resolveSeed', () => {
  it('defaults to the documented constant and keeps explicit seeds', () => {
    expect(resolveSeed('F', undefined)).toBe(DEFAULT_SEED);
    expect(DEFAULT_SEED).toBe(0);
    expect(resolveSeed('F', 0xffffffff)).toBe(0xffffffff);
  });

  it("draws 'random' seeds from crypto.getRandomValues", () => {
    const seeds = new Set(Array.from({ length: 20 }, () => resolveSeed('F', 'random')));
    expect(seeds.size).toBeGreaterThan(15);
    for (const seed of seeds) expect(seed >>> 0).toBe(seed);
  });

  it('rejects anything else with the allowed range', () => {
    for (const bad of [-1, 2 ** 32, 0.5, 'x', null]) {
      expect(() => resolveSeed('F.create', bad as never)).toThrow(InvalidArgumentError);
    }
    expect(() => resolveSeed('F.create', -1)).toThrow(
      "F.create: seed must be an integer in [0, 2^32 - 1] or 'random'",
    );
  });
});
