import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { BinaryFuseFilter } from '../src/index.js';

// test/golden/fuse8-v1.blmk and fuse16-v1.blmk: BinaryFuseFilter.build(goldenKeys(), { seed: 42 }) with 8- and
// 16-bit fingerprints, written by format version 1 (kind 9, docs/FORMAT.md §3.8). Frozen: never regenerate them; a new
// format version adds new files.
for (const [bits, length, absentHits] of [
  [8, 316, [333, 428, 800, 991, 1947]],
  [16, 572, []],
] as const) {
  describe(`golden file fuse${bits}-v1.blmk`, () => {
    const bytes = readGolden(new URL(`./golden/fuse${bits}-v1.blmk`, import.meta.url));

    it('decodes with its parameters and finds every key', () => {
      const filter = BinaryFuseFilter.deserialize(bytes);
      expect([filter.fingerprintBits, filter.seed, filter.size, bytes.length]).toEqual([
        bits,
        42,
        140,
        length,
      ]);
      expect(filter.reference().seed).toBe(7923716467325023335n);
      for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
    });

    it('answers the absent keys exactly as when it was written', () => {
      const filter = BinaryFuseFilter.deserialize(bytes);
      expect(goldenAbsentKeys().flatMap((key, i) => (filter.has(key) ? [i] : []))).toEqual(absentHits);
    });

    it('is what the same build serializes to today, byte for byte', () => {
      expect(BinaryFuseFilter.build(goldenKeys(), { fingerprintBits: bits, seed: 42 }).serialize()).toEqual(
        bytes,
      );
    });
  });
}
