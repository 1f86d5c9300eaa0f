import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { CuckooFilter } from '../src/index.js';

// test/golden/cuckoo-v1.blmk: CuckooFilter.create(200, 0.01, { seed: 42 }), addAll(goldenKeys()), then one more copy
// of the first key and a delete of the second, written by format version 1 (kind 10, docs/FORMAT.md §3.9). Frozen:
// never regenerate it; a new format version adds a new file.
describe('golden file cuckoo-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/cuckoo-v1.blmk', import.meta.url));
  const keys = goldenKeys();

  it('decodes with its parameters and finds every key it holds', () => {
    const filter = CuckooFilter.deserialize(bytes);
    expect([filter.seed, filter.capacity, filter.fpr, filter.buckets, filter.bucketSize]).toEqual([
      42, 200, 0.01, 56, 4,
    ]);
    expect([filter.fingerprintBits, filter.maxKicks, filter.size, bytes.length]).toEqual([
      10, 1000, 140, 340,
    ]);
    expect(filter.countOf(keys[0]!)).toBe(2);
    for (const key of [keys[0]!, ...keys.slice(2)]) expect(filter.has(key)).toBe(true);
  });

  it('answers the absent keys exactly as when it was written', () => {
    const filter = CuckooFilter.deserialize(bytes);
    expect(goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []))).toEqual([
      279, 632, 1314, 1371, 1795, 1800,
    ]);
  });

  it('is what the same adds serialize to today, byte for byte', () => {
    const filter = CuckooFilter.create(200, 0.01, { seed: 42 });
    filter.addAll(keys);
    filter.add(keys[0]!);
    filter.delete(keys[1]!);
    expect(filter.serialize()).toEqual(bytes);
  });
});
