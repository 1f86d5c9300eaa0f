import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { SplitBlockBloomFilter } from '../src/index.js';

// test/golden/split-block-v1.blmk: SplitBlockBloomFilter.create(200, 0.01, { type: 'BYTE_ARRAY' }) holding
// goldenKeys(), written by format version 1 (kind 8, docs/FORMAT.md §3.7). Frozen: never regenerate it; a new format
// version adds a new file.
describe('golden file split-block-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/split-block-v1.blmk', import.meta.url));

  it('decodes with its parameters and finds every key', () => {
    const filter = SplitBlockBloomFilter.deserialize(bytes);
    expect([filter.blocks, filter.type, filter.count, filter.capacity, filter.fpr, bytes.length]).toEqual([
      16,
      'BYTE_ARRAY',
      140,
      200,
      0.01,
      572,
    ]);
    for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
  });

  it('answers the absent keys exactly as when it was written', () => {
    const filter = SplitBlockBloomFilter.deserialize(bytes);
    const hits = goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []));
    expect(hits).toEqual([]);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    const filter = SplitBlockBloomFilter.create(200, 0.01, { type: 'BYTE_ARRAY' });
    for (const key of goldenKeys()) filter.add(key);
    expect(filter.serialize()).toEqual(bytes);
  });
});
