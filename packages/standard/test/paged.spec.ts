import { BitArray } from '@bloomkit/core/kit';
import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { StandardBloomFilter } from '../src/index.js';

// Filters past 4 GiB keep their bits in pages of 512 MiB. Small pages (64 bytes) take the same paths here without
// allocating gigabytes: clone, union and intersect go page by page, never through one array of the whole.
describe('paged storage: clone, union, intersect and serialize page by page', () => {
  const bits = 64 * 8 * 37 + 5; // 37 full pages of 64 bytes and a short one
  const paged = (keys: readonly string[]) => {
    const filter = new StandardBloomFilter(
      { bits, hashes: 3 },
      { storage: new BitArray(bits, { pageBytes: 64 }) },
    );
    filter.addAll(keys);
    return filter;
  };
  const flat = (keys: readonly string[]) => {
    const filter = new StandardBloomFilter({ bits, hashes: 3 });
    filter.addAll(keys);
    return filter;
  };

  it('answers and serializes as the one-page filter, and its operations keep the pages', () => {
    const a = urlKeys(300, 'paged-a');
    const b = [...a.slice(0, 100), ...urlKeys(300, 'paged-b')];
    const [pa, pb, fa, fb] = [paged(a), paged(b), flat(a), flat(b)];
    expect(pa.serialize()).toEqual(fa.serialize());
    expect(pa.serializeParts().length).toBe(2 + 38);
    const clone = pa.clone();
    expect(clone.serialize()).toEqual(fa.serialize());
    clone.add('only in the clone');
    expect(pa.has('only in the clone')).toBe(fa.has('only in the clone'));
    expect(
      pa
        .union(pb)
        .serialize()
        .subarray(24 + 40),
    ).toEqual(
      fa
        .union(fb)
        .serialize()
        .subarray(24 + 40),
    );
    expect(
      pa
        .intersect(pb)
        .serialize()
        .subarray(24 + 40),
    ).toEqual(
      fa
        .intersect(fb)
        .serialize()
        .subarray(24 + 40),
    );
    expect(pa.union(fb).equals(fa.union(fb))).toBe(true);
  });
});
