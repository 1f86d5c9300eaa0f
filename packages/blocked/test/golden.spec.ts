import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { BlockedBloomFilter } from '../src/index.js';

// test/golden/blocked-v1.blmk: BlockedBloomFilter.create(200, 0.01, { seed: 42 }) holding goldenKeys(),
// written by format version 1. Frozen: never regenerate it; a new format version adds a new file.
describe('golden file blocked-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/blocked-v1.blmk', import.meta.url));

  it('decodes with its parameters and finds every key', () => {
    const filter = BlockedBloomFilter.deserialize(bytes);
    expect([filter.bits, filter.hashes, filter.seed, filter.count, filter.capacity, filter.fpr]).toEqual([
      2048, 5, 42, 140, 200, 0.01,
    ]);
    for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
  });

  it('answers the absent keys exactly as when it was written', () => {
    const filter = BlockedBloomFilter.deserialize(bytes);
    const hits = goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []));
    expect(hits).toEqual([14, 150, 674, 1662, 1847]);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    const filter = BlockedBloomFilter.create(200, 0.01, { seed: 42 });
    filter.addAll(goldenKeys());
    expect(filter.serialize()).toEqual(bytes);
  });
});
