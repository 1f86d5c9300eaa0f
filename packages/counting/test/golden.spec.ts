import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { CountingBloomFilter } from '../src/index.js';

/** The filter in test/golden/counting-v1.blmk (format version 1), frozen: never regenerate the file. */
function buildGolden(): CountingBloomFilter {
  const keys = goldenKeys();
  const filter = CountingBloomFilter.create(200, 0.01, { seed: 42 });
  filter.addAll(keys);
  filter.addAll(keys.slice(0, 10)); // the first ten URLs twice
  for (const key of keys.slice(100, 110)) filter.delete(key); // ten non-ASCII keys removed
  return filter;
}

describe('golden file counting-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/counting-v1.blmk', import.meta.url));

  it('decodes with its parameters, counts and answers', () => {
    const filter = CountingBloomFilter.deserialize(bytes);
    expect([
      filter.bits,
      filter.hashes,
      filter.seed,
      filter.counterBits,
      filter.count,
      filter.capacity,
    ]).toEqual([1920, 7, 42, 4, 129, 200]);
    const keys = goldenKeys();
    for (const key of [...keys.slice(0, 100), ...keys.slice(110)]) expect(filter.has(key)).toBe(true);
    expect(filter.countOf(keys[0]!)).toBe(2);
    expect(filter.countOf(keys[50]!)).toBe(1);
    expect(filter.has(keys[105]!)).toBe(false);
    expect(goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []))).toEqual([
      244, 906, 999, 1260,
    ]);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    expect(buildGolden().serialize()).toEqual(bytes);
  });
});
