import {
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  partitionedFalsePositiveRate,
} from '@bloomkit/core';
import { StandardBloomFilter } from '@bloomkit/standard';
import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { PartitionedBloomFilter } from '../src/index.js';

describe('PartitionedBloomFilter', () => {
  it('sets exactly one bit per slice for each key', () => {
    const filter = new PartitionedBloomFilter({ bits: 7 * 1000, hashes: 7 });
    filter.add('only-key');
    const bytes = filter.serialize().subarray(64, -4);
    const perSlice = Array.from({ length: 7 }, (_, slice) => {
      let set = 0;
      for (let bit = slice * 1000; bit < (slice + 1) * 1000; bit++)
        if (bytes[bit >> 3]! & (1 << (bit & 7))) set++;
      return set;
    });
    expect(perSlice).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it('fills every slice at the same pace', () => {
    const filter = new PartitionedBloomFilter({ bits: 4 * 5000, hashes: 4 });
    filter.addAll(urlKeys(3000, 'slices'));
    const bytes = filter.serialize().subarray(64, -4);
    const fills = [0, 1, 2, 3].map((slice) => {
      let set = 0;
      for (let bit = slice * 5000; bit < (slice + 1) * 5000; bit++)
        if (bytes[bit >> 3]! & (1 << (bit & 7))) set++;
      return set / 5000;
    });
    const expected = 1 - (1 - 1 / 5000) ** 3000;
    for (const fill of fills) expect(Math.abs(fill - expected)).toBeLessThan(0.02);
  });

  it('create sizes m as a multiple of k with predicted rate at most fpr', () => {
    const filter = PartitionedBloomFilter.create(100_000, 0.001);
    expect(filter.bits % filter.hashes).toBe(0);
    expect(partitionedFalsePositiveRate(filter.bits, 100_000, filter.hashes)).toBeLessThanOrEqual(0.001);
  });

  it('rounds an explicit m up to a multiple of k', () => {
    expect(new PartitionedBloomFilter({ bits: 1000, hashes: 3 }).bits).toBe(1002);
  });

  it('rejects bad arguments, other kinds and foreign bytes with typed errors', () => {
    expect(() => PartitionedBloomFilter.create(10, 2)).toThrow(
      /PartitionedBloomFilter.create: fpr must be in \(0, 1\)/,
    );
    expect(() => new PartitionedBloomFilter({ bits: 10, hashes: 0 })).toThrow(InvalidArgumentError);
    const standardBytes = StandardBloomFilter.create(10, 0.1).serialize();
    expect(() => PartitionedBloomFilter.deserialize(standardBytes)).toThrow(
      /hold a filter of kind 1, not a partitioned filter \(kind 2\)/,
    );
    expect(() => PartitionedBloomFilter.deserialize(new Uint8Array(100))).toThrow(FormatError);
    const a = PartitionedBloomFilter.create(10, 0.1);
    expect(() => a.union(PartitionedBloomFilter.create(10, 0.01))).toThrow(IncompatibleFiltersError);
  });
});
