import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { StandardBloomFilter } from '../src/index.js';

// test/golden/standard-v1.blmk: StandardBloomFilter.create(200, 0.01, { seed: 42 }) holding goldenKeys(),
// written by format version 1. Frozen: never regenerate it; a new format version adds a new file.
describe('golden file standard-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/standard-v1.blmk', import.meta.url));

  it('decodes with its parameters and finds every key', () => {
    const filter = StandardBloomFilter.deserialize(bytes);
    expect([filter.bits, filter.hashes, filter.seed, filter.count, filter.capacity, filter.fpr]).toEqual([
      1920, 7, 42, 139, 200, 0.01,
    ]);
    for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
  });

  it('answers the absent keys exactly as when it was written', () => {
    const filter = StandardBloomFilter.deserialize(bytes);
    const hits = goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []));
    expect(hits).toEqual([244, 906, 999, 1260]);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    const filter = StandardBloomFilter.create(200, 0.01, { seed: 42 });
    filter.addAll(goldenKeys());
    expect(filter.serialize()).toEqual(bytes);
  });
});
