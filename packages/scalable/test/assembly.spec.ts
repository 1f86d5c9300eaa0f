import { FormatError } from '@bloomkit/core';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ScalableBloomFilter, subFilterShape } from '../src/index.js';

describe('subFilterShape and fromSubFilters (for stores that keep the chain elsewhere)', () => {
  const schedule = { initialCapacity: 100, fpr: 0.01, growth: 1.5, tightening: 0.93 };
  const filter = ScalableBloomFilter.create(100, 0.01, { seed: 11 });
  filter.addAll(urlKeys(2_000, 'assembly'));

  it('gives the shape of every sub-filter the filter grew', () => {
    expect(filter.filterCount).toBeGreaterThan(3);
    filter.subFilters().forEach((sub, i) => {
      expect(subFilterShape(schedule, i)).toEqual({
        capacity: sub.capacity,
        fpr: sub.fpr,
        bits: sub.bits,
        hashes: sub.hashes,
      });
    });
  });

  it('rebuilds the same filter from its sub-filters, and refuses sub-filters the schedule does not give', () => {
    const rebuilt = ScalableBloomFilter.fromSubFilters(
      { ...schedule, seed: 11, count: filter.count },
      filter.subFilters(),
    );
    expect(rebuilt.serialize()).toEqual(filter.serialize());
    const subs = [...filter.subFilters()];
    expect(() => ScalableBloomFilter.fromSubFilters({ ...schedule, seed: 12, count: 0 }, subs)).toThrow(
      FormatError,
    );
    expect(() =>
      ScalableBloomFilter.fromSubFilters({ ...schedule, seed: 11, count: 0 }, subs.slice(1)),
    ).toThrow(/sub-filter 0 is sized for 150 keys/);
    expect(() =>
      ScalableBloomFilter.fromSubFilters({ ...schedule, seed: 11, count: 0 }, [
        PartitionedBloomFilter.create(100, 0.5, { seed: 11 }),
      ]),
    ).toThrow(FormatError);
    expect(() => ScalableBloomFilter.fromSubFilters({ ...schedule, seed: 11, count: 0 }, [])).toThrow(
      FormatError,
    );
  });
});
