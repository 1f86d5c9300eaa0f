import { BlockedBloomFilter } from '@bloomkit/blocked';
import { StandardBloomFilter } from '@bloomkit/standard';
import { fprLowerBoundCount, fprUpperBoundCount, urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ExceptionFilter } from '../src/index.js';

// Exceptions never raise the rate: on keys never seen, an ExceptionFilter answers exactly as its nested filter, so
// its measured rate is within the formula's 99.9% bounds; on the keys listed, it is 0.
describe('ExceptionFilter false-positive rate', () => {
  for (const [layout, make] of [
    ['standard', () => StandardBloomFilter.create(100_000, 0.01, { seed: 21 })],
    ['blocked', () => BlockedBloomFilter.create(100_000, 0.01, { seed: 21 })],
  ] as const) {
    it(`${layout}: within the formula's bounds on fresh keys with 10^4 exceptions listed, 0 on the listed`, () => {
      const filter = ExceptionFilter.wrap(make());
      filter.addAll(urlKeys(100_000, 'members'));
      const listed = urlKeys(1_000_000, 'listed')
        .filter((key) => filter.filter.has(key))
        .slice(0, 10_000);
      expect(listed.length).toBe(10_000);
      for (const key of listed) filter.addException(key);
      const probes = urlKeys(1_000_000, 'fresh');
      const hits = probes.filter((key) => filter.has(key)).length;
      const shape = [{ layout, bits: filter.bits, hashes: filter.hashes, n: 100_000 }];
      expect(hits).toBeLessThanOrEqual(fprUpperBoundCount(shape, probes.length));
      expect(hits).toBeGreaterThanOrEqual(fprLowerBoundCount(shape, probes.length));
      expect(hits).toBeLessThanOrEqual(0.01 * probes.length * 1.1);
      expect(listed.filter((key) => filter.has(key))).toEqual([]);
    });
  }
});
