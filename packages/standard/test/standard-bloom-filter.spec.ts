import {
  FormatError,
  falsePositiveRate,
  IncompatibleFiltersError,
  InvalidArgumentError,
  optimalBits,
} from '@bloomkit/core';
import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { StandardBloomFilter } from '../src/index.js';

describe('StandardBloomFilter.create', () => {
  it('sizes m within 0.5% of the optimum with a predicted rate at most fpr', () => {
    const filter = StandardBloomFilter.create(1_000_000, 0.01);
    expect(filter.hashes).toBe(7);
    expect(filter.bits / optimalBits(1_000_000, 0.01)).toBeLessThan(1.005);
    expect(falsePositiveRate(filter.bits, 1_000_000, filter.hashes)).toBeLessThanOrEqual(0.01);
    expect([filter.capacity, filter.fpr, filter.seed, filter.count]).toEqual([1_000_000, 0.01, 0, 0]);
  });

  it('takes an explicit seed or draws a random one, and keeps it through serialization', () => {
    expect(StandardBloomFilter.create(10, 0.1, { seed: 77 }).seed).toBe(77);
    const random = StandardBloomFilter.create(10, 0.1, { seed: 'random' });
    random.add('k');
    const restored = StandardBloomFilter.deserialize(random.serialize());
    expect(restored.seed).toBe(random.seed);
    expect(restored.has('k')).toBe(true);
  });

  it('rejects bad capacity and fpr with typed errors naming them, building nothing', () => {
    const bad: [number, number, RegExp][] = [
      [0, 0.01, /StandardBloomFilter.create: capacity must be an integer in \[1, /],
      [-5, 0.01, /capacity/],
      [1.5, 0.01, /capacity/],
      [Number.NaN, 0.01, /capacity/],
      [Number.POSITIVE_INFINITY, 0.01, /capacity/],
      [100, 0, /StandardBloomFilter.create: fpr must be in \(0, 1\), got number 0/],
      [100, 1, /fpr must be in \(0, 1\)/],
      [100, 1.5, /got number 1.5/],
      [100, Number.NaN, /fpr/],
    ];
    for (const [capacity, fpr, message] of bad) {
      expect(() => StandardBloomFilter.create(capacity, fpr)).toThrow(message);
      expect(() => StandardBloomFilter.create(capacity, fpr)).toThrow(InvalidArgumentError);
    }
  });
});

describe('StandardBloomFilter', () => {
  it('add is test-and-add: true for a new key, false once present', () => {
    const filter = StandardBloomFilter.create(1000, 0.001);
    expect(filter.add('https://example.com/')).toBe(true);
    expect(filter.add('https://example.com/')).toBe(false);
    expect(filter.count).toBe(1);
  });

  it('rejects bad keys with a typed error and stays unchanged', () => {
    const filter = StandardBloomFilter.create(1000, 0.01);
    filter.add('a');
    const before = filter.serialize();
    for (const bad of [1, null, undefined, {}, ['a'], new Uint16Array(1)]) {
      expect(() => filter.add(bad as never)).toThrow(
        /StandardBloomFilter.add: key must be a string or a Uint8Array/,
      );
      expect(() => filter.has(bad as never)).toThrow(/StandardBloomFilter.has: key/);
    }
    expect(filter.serialize()).toEqual(before);
  });

  it('estimates its count and current rate from the fill ratio', () => {
    const filter = StandardBloomFilter.create(50_000, 0.01);
    filter.addAll(urlKeys(50_000, 'est'));
    expect(Math.abs(filter.estimatedCount() - 50_000)).toBeLessThan(1_000);
    expect(filter.expectedFpr()).toBeGreaterThan(0.007);
    expect(filter.expectedFpr()).toBeLessThan(0.013);
  });

  it('refuses to combine with a differently built filter', () => {
    const a = StandardBloomFilter.create(1000, 0.01);
    expect(() => a.union(StandardBloomFilter.create(1000, 0.01, { seed: 1 }))).toThrow(
      IncompatibleFiltersError,
    );
    expect(() => a.intersect(StandardBloomFilter.create(2000, 0.01))).toThrow(IncompatibleFiltersError);
  });

  it('deserialize rejects other kinds, corrupt and truncated bytes with a FormatError', () => {
    const bytes = StandardBloomFilter.create(100, 0.01).serialize();
    const partitionedKind = bytes.slice();
    partitionedKind[5] = 2;
    expect(() => StandardBloomFilter.deserialize(partitionedKind)).toThrow(
      /hold a filter of kind 2, not a standard filter \(kind 1\)/,
    );
    const corrupt = bytes.slice();
    corrupt[70]! ^= 1;
    expect(() => StandardBloomFilter.deserialize(corrupt)).toThrow(/checksum mismatch/);
    expect(() => StandardBloomFilter.deserialize(bytes.subarray(0, 50))).toThrow(FormatError);
  });

  it('with copy: false reads and writes the caller bytes in place', () => {
    const bytes = StandardBloomFilter.create(100, 0.01).serialize();
    const opened = StandardBloomFilter.deserialize(bytes, { copy: false });
    opened.add('in-place');
    expect(StandardBloomFilter.deserialize(bytes, { verifyChecksum: false }).has('in-place')).toBe(true);
  });
});

describe('StandardBloomFilter memory limit (maxBytes)', () => {
  it('refuses, before allocating, a filter larger than maxBytes (default 4 GiB), saying how many bytes', () => {
    expect(() => StandardBloomFilter.create(1e12, 1e-12)).toThrow(
      /StandardBloomFilter.create: the filter needs \d+ bytes, more than maxBytes \(4294967296\)/,
    );
    expect(() => new StandardBloomFilter({ bits: 2 ** 48, hashes: 1 })).toThrow(
      'new StandardBloomFilter: the filter needs 35184372088832 bytes, more than maxBytes (4294967296)',
    );
    expect(() => StandardBloomFilter.create(10_000, 0.01, { maxBytes: 1000 })).toThrow(/needs 11992 bytes/);
    expect(() => StandardBloomFilter.create(10, 0.01, { maxBytes: 0 })).toThrow(
      /maxBytes must be an integer/,
    );
  });

  it('allows what fits, and clones, unions and reads filters without a second check', () => {
    const filter = StandardBloomFilter.create(10_000, 0.01, { maxBytes: 11_992 });
    filter.add('a');
    expect(filter.clone().has('a')).toBe(true);
    expect(filter.union(filter).has('a')).toBe(true);
    expect(StandardBloomFilter.deserialize(filter.serialize()).has('a')).toBe(true);
  });
});
