import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ScalableBloomFilter } from '../src/index.js';

// test/golden/scalable-v1.blmk: ScalableBloomFilter.create(50, 0.01, { seed: 42 }) holding goldenKeys(): three
// sub-filters (50, 75 and 113 keys; growth 1.5, tightening 0.93) as nested envelopes. Format version 1. Regenerated
// once before the first release, when growth became a binary64 factor (the 48-byte params block); frozen from the
// first release on: never regenerate it after that.
describe('golden file scalable-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/scalable-v1.blmk', import.meta.url));

  it('decodes its chain and finds every key', () => {
    const filter = ScalableBloomFilter.deserialize(bytes);
    expect([filter.initialCapacity, filter.fpr, filter.growth, filter.tightening, filter.seed]).toEqual([
      50, 0.01, 1.5, 0.93, 42,
    ]);
    expect([filter.count, filter.filterCount, filter.bits]).toEqual([140, 3, 3672]);
    expect(filter.subFilters().map((s) => [s.capacity, s.bits, s.hashes, s.count])).toEqual([
      [50, 768, 12, 50],
      [75, 1155, 11, 75],
      [113, 1749, 11, 15],
    ]);
    for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
    expect(goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []))).toEqual([659, 827]);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    const filter = ScalableBloomFilter.create(50, 0.01, { seed: 42 });
    filter.addAll(goldenKeys());
    expect(filter.serialize()).toEqual(bytes);
  });
});
