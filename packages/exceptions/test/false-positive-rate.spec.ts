import { BlockedBloomFilter } from '@bloomkit/blocked';
import { StandardBloomFilter } from '@bloomkit/standard';
import {
  fprLowerBoundCount,
  fprUpperBoundCount,
  urlKeyChunks,
  urlKeys,
  yieldToRunner,
} from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ExceptionFilter } from '../src/index.js';

// Exceptions never raise the rate: on keys never seen, an ExceptionFilter answers exactly as its nested filter, so
// its measured rate is within the formula's 99.9% bounds; on the keys listed, it is 0.
describe('ExceptionFilter false-positive rate', () => {
  for (const [layout, make] of [
    ['standard', () => StandardBloomFilter.create(100_000, 0.01, { seed: 21 })],
    ['blocked', () => BlockedBloomFilter.create(100_000, 0.01, { seed: 21 })],
  ] as const) {
    it(`${layout}: within the formula's bounds on fresh keys with 10^4 exceptions listed, 0 on the listed`, async () => {
      const filter = ExceptionFilter.wrap(make());
      filter.addAll(urlKeys(100_000, 'members'));
      // The first 10^4 false positives among up to 10^6 candidates, 10^5 at a time (the event loop runs between).
      const listed: string[] = [];
      for (const chunk of urlKeyChunks(1_000_000, 'listed', 1, 100_000)) {
        for (const key of chunk) if (listed.length < 10_000 && filter.filter.has(key)) listed.push(key);
        await yieldToRunner();
      }
      expect(listed.length).toBe(10_000);
      for (const key of listed) filter.addException(key);
      const probes = 1_000_000;
      let hits = 0;
      for (const chunk of urlKeyChunks(probes, 'fresh', 1, 100_000)) {
        for (const key of chunk) if (filter.has(key)) hits++;
        await yieldToRunner();
      }
      const shape = [{ layout, bits: filter.bits, hashes: filter.hashes, n: 100_000 }];
      expect(hits).toBeLessThanOrEqual(fprUpperBoundCount(shape, probes));
      expect(hits).toBeGreaterThanOrEqual(fprLowerBoundCount(shape, probes));
      expect(hits).toBeLessThanOrEqual(0.01 * probes * 1.1);
      expect(listed.filter((key) => filter.has(key))).toEqual([]);
    });
  }
});
