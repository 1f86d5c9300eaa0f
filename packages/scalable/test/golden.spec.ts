import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ScalableBloomFilter } from '../src/index.js';

// test/golden/scalable-v1.blmk: ScalableBloomFilter.create(50, 0.01, { seed: 42 }) holding goldenKeys(): two
// sub-filters (50 and 100 keys) as nested envelopes. Format version 1, frozen: never regenerate it.
describe('golden file scalable-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/scalable-v1.blmk', import.meta.url));

  it('decodes its chain and finds every key', () => {
    const filter = ScalableBloomFilter.deserialize(bytes);
    expect([filter.initialCapacity, filter.fpr, filter.growth, filter.tightening, filter.seed]).toEqual([
      50, 0.01, 2, 0.85, 42,
    ]);
    expect([filter.count, filter.filterCount, filter.bits]).toEqual([140, 2, 2079]);
    expect(filter.subFilters().map((s) => [s.bits, s.hashes, s.count])).toEqual([
      [684, 9, 50],
      [1395, 9, 90],
    ]);
    for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
    expect(goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []))).toEqual([
      52, 257, 477, 616, 958, 1926,
    ]);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    const filter = ScalableBloomFilter.create(50, 0.01, { seed: 42 });
    filter.addAll(goldenKeys());
    expect(filter.serialize()).toEqual(bytes);
  });
});
