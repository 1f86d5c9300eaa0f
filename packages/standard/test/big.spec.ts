import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { StandardBloomFilter } from '../src/index.js';

// m = 2^32 + 2^20 bits: two 512 MiB pages, positions above 2^32. Allocates about 1 GiB (filter and its
// serialization) and runs in a few seconds, so it stays in the normal suite.
describe('StandardBloomFilter beyond 2^32 bits', () => {
  it('adds, finds and round-trips keys with positions above 2^32', () => {
    const bits = 2 ** 32 + 2 ** 20;
    const filter = new StandardBloomFilter({ bits, hashes: 7 });
    const keys = urlKeys(20_000, 'big');
    expect(filter.addAll(keys)).toBe(20_000);
    for (const key of keys) expect(filter.has(key)).toBe(true);
    // Some keys must really have landed past 2^32 (≈ 2^20 / m of all positions ≈ 0.02%, plus the whole top half).
    const restored = StandardBloomFilter.deserialize(filter.serialize(), { copy: false });
    expect(restored.bits).toBe(bits);
    expect(restored.equals(filter)).toBe(true);
    for (const key of keys) expect(restored.has(key)).toBe(true);
    const absent = urlKeys(20_000, 'big-absent');
    expect(absent.filter((k) => restored.has(k)).length).toBe(0);
    expect(restored.estimatedCount()).toBeCloseTo(20_000, -2);
  });
});
