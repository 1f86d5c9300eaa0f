import { FormatError, IncompatibleFiltersError, InvalidArgumentError } from '@bloomkit/core';
import { crc32c, hashInto } from '@bloomkit/core/kit';
import { depth, expectHashBatchesAsSingleKeys, urlKeys } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';

const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.uint8Array({ maxLength: 16 }));

describe('WindowBloomFilter', () => {
  it('add is test-and-add: true the first time a key is seen in the window', () => {
    const filter = WindowBloomFilter.create(1_000, 0.001);
    expect(filter.add('a')).toBe(true);
    expect(filter.add('a')).toBe(false);
    expect(filter.has('a')).toBe(true);
    expect(filter.count).toBe(1);
    expect(filter.addAll(['a', 'b', 'c', 'b'])).toBe(2);
    expect(filter.hasMany(['a', 'b', 'z'])).toEqual([true, true, false]);
    expect(filter.reach()).toEqual({ keys: 3, since: undefined });
  });

  it('addHashes and hasHashes answer as addHash and has key by key, and refuse bad arguments changing nothing', () => {
    expectHashBatchesAsSingleKeys(
      () => WindowBloomFilter.create(50, 0.01, { seed: 9 }),
      (k, seed) => {
        const h = new Int32Array(4);
        hashInto(k, seed, h, 'test');
        return h;
      },
    );
  });

  it('states its shape and facts: window, capacity, fpr, k, l, g, s, bits, horizon', () => {
    const filter = WindowBloomFilter.create(1_000_000, 0.01, { seed: 5 });
    expect([filter.window, filter.capacity, filter.fpr, filter.seed, filter.duration]).toEqual([
      1_000_000,
      1_000_000,
      0.01,
      5,
      undefined,
    ]);
    expect(filter.ageSlices * filter.generation).toBeGreaterThanOrEqual(1_000_000);
    expect(filter.bits).toBe((filter.hashes + filter.ageSlices) * filter.sliceBits);
    expect(filter.sliceBits % 64).toBe(0);
    expect(filter.horizon).toEqual({
      keys: (filter.hashes + filter.ageSlices) * filter.generation,
      ms: undefined,
    });
  });

  it('refuses bad arguments with a typed error naming the parameter and its range', () => {
    expect(() => WindowBloomFilter.create(0, 0.01)).toThrow(/window must be an integer in \[1, 2\^53 - 1\]/);
    expect(() => WindowBloomFilter.create(1.5, 0.01)).toThrow(InvalidArgumentError);
    expect(() => WindowBloomFilter.create(10, 1)).toThrow(/fpr must be in \(0, 1\)/);
    expect(() => WindowBloomFilter.create(10, 0.01, { duration: 0 })).toThrow(/duration must be an integer/);
    expect(() => WindowBloomFilter.create(10, 0.01, { duration: 1.5 })).toThrow(InvalidArgumentError);
    expect(() =>
      WindowBloomFilter.create(10, 0.01, { duration: 10, clock: 5 as unknown as () => number }),
    ).toThrow(/clock must be a function/);
    expect(() => WindowBloomFilter.create(10, 0.01, { duration: 10, clock: () => Number.NaN })).toThrow(
      /clock must return milliseconds since the epoch in \[0, 2\^47\], got NaN/,
    );
    expect(() => WindowBloomFilter.create(1e12, 1e-9)).toThrow(/more than 4294967296 bits/);
    expect(() => WindowBloomFilter.create(1e8, 0.01, { maxBytes: 1000 })).toThrow(/maxBytes/);
    const filter = WindowBloomFilter.create(10, 0.01);
    expect(() => filter.add(5 as unknown as string)).toThrow(InvalidArgumentError);
    expect(() => filter.addAll(['a', 5 as unknown as string])).toThrow(InvalidArgumentError);
    expect(filter.count).toBe(0);
  });

  it('has no false negatives for the last `window` keys, whatever the window and keys (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.array(key, { maxLength: 400 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (window, keys, seed) => {
          const filter = WindowBloomFilter.create(window, 0.05, { seed });
          for (const k of keys) filter.add(k);
          for (const k of keys.slice(-window)) expect(filter.has(k)).toBe(true);
          expect(filter.hasMany(keys.slice(-window)).every(Boolean)).toBe(true);
        },
      ),
      { numRuns: depth(200) },
    );
  });

  it('round-trips through bytes, parts, JSON and in place; the copy answers and continues alike (property)', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), fc.array(key, { maxLength: 50 }), (keys, more) => {
        const filter = WindowBloomFilter.create(40, 0.02, { seed: 3 });
        for (const k of keys) filter.add(k);
        const bytes = filter.serialize();
        const copies = [
          WindowBloomFilter.deserialize(bytes),
          WindowBloomFilter.deserialize(filter.serializeParts()),
          WindowBloomFilter.fromJSON(JSON.parse(JSON.stringify(filter))),
          WindowBloomFilter.deserialize(bytes.slice(), { copy: false }),
        ];
        for (const copy of copies) {
          expect(copy.equals(filter)).toBe(true);
          expect(copy.serialize()).toEqual(bytes);
        }
        const twin = filter.clone();
        for (const k of more) {
          const expected = twin.add(k);
          for (const copy of copies) expect(copy.add(k)).toBe(expected);
        }
        for (const copy of copies) expect(copy.serialize()).toEqual(twin.serialize());
        expect(copies[3]!.syncBytes()).toEqual(twin.serialize());
      }),
      { numRuns: depth(150) },
    );
  });

  it('works in place: adds change the caller bytes, syncBytes makes them a valid file again', () => {
    const filter = WindowBloomFilter.create(100, 0.01);
    filter.addAll(urlKeys(150, 'place', 1));
    const file = filter.serialize();
    const view = WindowBloomFilter.deserialize(file, { copy: false });
    view.addAll(urlKeys(60, 'more', 2));
    expect(() => WindowBloomFilter.deserialize(file)).toThrow(FormatError);
    expect(view.syncBytes()).toBe(file);
    expect(WindowBloomFilter.deserialize(file).equals(view)).toBe(true);
    expect(() => filter.syncBytes()).toThrow(/does not work in place/);
  });

  it('union holds both windows keys generation by generation, as adding both to one window does', () => {
    const a = WindowBloomFilter.create(1_000, 0.01, { seed: 1 });
    const b = WindowBloomFilter.create(1_000, 0.01, { seed: 1 });
    const both = WindowBloomFilter.create(1_000, 0.01, { seed: 1 });
    const left = urlKeys(20, 'left', 1);
    const right = urlKeys(20, 'right', 2);
    a.addAll(left);
    b.addAll(right);
    both.addAll([...left, ...right]);
    const union = a.union(b);
    expect(union.fillRatio()).toBe(both.fillRatio());
    expect(union.reach().keys).toBe(40);
    for (const k of [...left, ...right]) expect(union.has(k)).toBe(true);
    // A generation cannot hold more than g keys: past it the union would break the rate.
    const full = WindowBloomFilter.create(1_000, 0.01, { seed: 1 });
    full.addAll(urlKeys(full.generation - 1, 'full', 3));
    const other = WindowBloomFilter.create(1_000, 0.01, { seed: 1 });
    other.addAll(urlKeys(2, 'two', 4));
    expect(() => full.union(other)).toThrow(IncompatibleFiltersError);
    expect(() => a.union(WindowBloomFilter.create(1_000, 0.01, { seed: 2 }))).toThrow(/differ/);
    expect(() => a.intersect(b)).toThrow(IncompatibleFiltersError);
    const timed = WindowBloomFilter.create(10, 0.01, { duration: 1_000 });
    expect(() => timed.union(timed.clone())).toThrow(/clocks/);
  });

  it('clear forgets everything; clone is independent', () => {
    const filter = WindowBloomFilter.create(100, 0.01);
    filter.addAll(urlKeys(50, 'c', 1));
    const copy = filter.clone();
    filter.clear();
    expect(filter.fillRatio()).toBe(0);
    expect(filter.count).toBe(0);
    expect(filter.reach().keys).toBe(0);
    expect(copy.reach().keys).toBe(50);
    expect(copy.equals(filter)).toBe(false);
  });

  it('expectedFpr follows the fill and stays at most the target on a long stream', () => {
    const filter = WindowBloomFilter.create(2_000, 0.01, { seed: 4 });
    expect(filter.expectedFpr()).toBe(0);
    filter.addAll(urlKeys(30_000, 'long', 4));
    expect(filter.expectedFpr()).toBeGreaterThan(0.001);
    expect(filter.expectedFpr()).toBeLessThanOrEqual(0.012);
    expect(filter.estimatedCount()).toBe(filter.reach().keys);
  });

  it('refuses a file whose k is past 32, or whose generation holds more than g keys, with a FormatError', () => {
    const bytes = WindowBloomFilter.create(10, 0.01).serialize();
    const forge = (at: number, value: number) => {
      const copy = bytes.slice();
      copy[at] = value;
      new DataView(copy.buffer).setUint32(copy.length - 4, crc32c(copy.subarray(0, -4)), true);
      return copy;
    };
    expect(() => WindowBloomFilter.deserialize(forge(24, 33))).toThrow(/k must be in \[1, 32\]/);
    expect(() => WindowBloomFilter.deserialize(forge(24 + 64, 200))).toThrow(FormatError);
  });

  it('clear leaves a time window as create does: empty, its reach defined from now', () => {
    let now = 50_000;
    const filter = WindowBloomFilter.create(100, 0.01, { duration: 1_000, clock: () => now });
    filter.addAll(urlKeys(500, 't', 1));
    now += 10_000;
    filter.clear();
    expect(filter.reach().keys).toBe(0);
    expect(filter.reach().since).toBeLessThanOrEqual(now - 1_000);
    expect(filter.shortened).toBe(false);
  });

  it('a time window reports its reach and horizon on the clock', () => {
    let now = 10_000;
    const filter = WindowBloomFilter.create(100, 0.01, { duration: 1_000, clock: () => now });
    expect(filter.duration).toBe(1_000);
    const { ms } = filter.horizon;
    expect(ms).toBeGreaterThan(1_000);
    expect(filter.reach().since).toBeLessThanOrEqual(now - 1_000);
    filter.add('x');
    now += 500;
    expect(filter.has('x')).toBe(true);
    // A clock that goes back changes nothing.
    now -= 5_000;
    expect(filter.has('x')).toBe(true);
  });
});
