import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { CapacityError, CuckooFilter } from '../src/index.js';

/**
 * Adds keys one at a time until the first refusal; the keys added and what the file was just before the refused
 * add: a twin given the same keys in the same order (adds are deterministic, so its bytes are what the filter's
 * were before the refusal).
 */
function fillUntilRefused(filter: CuckooFilter, namespace: string, seed: number) {
  const keys = urlKeys(Math.ceil(filter.buckets * filter.bucketSize * 1.01), namespace);
  for (let added = 0; added < keys.length; added++) {
    try {
      filter.add(keys[added]!);
    } catch (error) {
      expect(error).toBeInstanceOf(CapacityError);
      expect((error as Error).message).toMatch(/nothing was changed/);
      const twin = CuckooFilter.create(filter.capacity, filter.fpr, { bucketSize: filter.bucketSize, seed });
      twin.addAll(keys.slice(0, added));
      return { keys: keys.slice(0, added), before: twin.serialize() };
    }
  }
  throw new Error('the table took more keys than it has slots');
}

describe('a full filter loses nothing', () => {
  for (const capacity of [100_000, 300_007, 1_000_000]) {
    it(`${capacity} keys, 4-slot buckets: first refusal at ≥ 95% of the slots, every key kept, the refusal changes no byte`, () => {
      const filter = CuckooFilter.create(capacity, 0.01, { seed: 17 });
      const { keys, before } = fillUntilRefused(filter, `fill-${capacity}`, 17);
      expect(filter.loadFactor).toBeGreaterThanOrEqual(0.95);
      expect(keys.length).toBeGreaterThan(capacity);
      expect(filter.serialize()).toEqual(before);
      expect(filter.hasMany(keys).every(Boolean)).toBe(true);
      expect(filter.size).toBe(keys.length);
    });
  }

  it('takes back a whole batch that meets a refusal', () => {
    const filter = CuckooFilter.create(5000, 0.01, { seed: 2 });
    const kept = urlKeys(5000, 'kept');
    filter.addAll(kept);
    const before = filter.serialize();
    expect(() => filter.addAll(urlKeys(2000, 'overflow'))).toThrow(CapacityError);
    expect(filter.serialize()).toEqual(before);
    const hashes = new Int32Array(4 * 2000);
    expect(() =>
      filter.addHashes(
        hashes.map((_, i) => Math.imul(i + 1, 0x9e3779b1)),
        2000,
      ),
    ).toThrow(CapacityError);
    expect(filter.serialize()).toEqual(before);
    expect(filter.hasMany(kept).every(Boolean)).toBe(true);
  });

  it('refuses a key’s copy past the 2·b slots of its two buckets, changing nothing', () => {
    for (const bucketSize of [2, 4, 8] as const) {
      const filter = CuckooFilter.create(10_000, 0.01, { bucketSize });
      for (let copy = 0; copy < 2 * bucketSize; copy++) filter.add('again');
      const before = filter.serialize();
      expect(() => filter.add('again')).toThrow(CapacityError);
      expect(filter.serialize()).toEqual(before);
      expect(filter.countOf('again')).toBe(2 * bucketSize);
    }
  });

  it('fills tables of 2- and 8-slot buckets to their known loads', () => {
    for (const [bucketSize, least] of [
      [2, 0.84],
      [8, 0.97],
    ] as const) {
      const filter = CuckooFilter.create(100_000, 0.01, { bucketSize, seed: 5 });
      const { keys, before } = fillUntilRefused(filter, `fill-b${bucketSize}`, 5);
      expect(filter.loadFactor).toBeGreaterThanOrEqual(least);
      expect(filter.serialize()).toEqual(before);
      expect(filter.hasMany(keys).every(Boolean)).toBe(true);
    }
  });
});
