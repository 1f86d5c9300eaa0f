import {
  BloomError,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  optimalBits,
  partitionedFalsePositiveRate,
  UnsupportedVersionError,
} from '@bloomkit/core';
import { crc32c, hashInto } from '@bloomkit/core/kit';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import {
  concat,
  countHits,
  expectHashBatchesAsSingleKeys,
  firstDifference,
  fprUpperBoundCount,
  splitAt,
  upperBoundCount,
  urlKeys,
  yieldToRunner,
} from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScalableBloomFilter } from '../src/index.js';

const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.uint8Array({ maxLength: 16 }));

describe('ScalableBloomFilter.addHashes and hasHashes', () => {
  it('answer as addHash and has key by key, across growth, and refuse bad arguments changing nothing', () => {
    expectHashBatchesAsSingleKeys(
      () => ScalableBloomFilter.create(20, 0.01, { seed: 9 }),
      (k, seed) => {
        const h = new Int32Array(4);
        hashInto(k, seed, h, 'test');
        return h;
      },
    );
  });

  it('answer as add and has key by key where sub-filters batch in WebAssembly, with repeats at every growth', async () => {
    // Sub-filters from 300,000 keys hold their bits in a kernel memory (256 KiB and up); a third of the adds repeat
    // an earlier key, so some reach a full sub-filter (which must not grow the chain for them).
    const keys = urlKeys(700_000, 'kernel-batches');
    const adds = keys.slice(0, 600_000).map((k, i) => (i % 3 === 2 ? keys[(i * 7919) % i]! : k));
    const single = ScalableBloomFilter.create(300_000, 0.01, { seed: 4 });
    const batched = ScalableBloomFilter.create(300_000, 0.01, { seed: 4 });
    let expectedAdded = 0;
    const expected = new Uint8Array(adds.length);
    const hashes = new Int32Array(4 * adds.length);
    const h = new Int32Array(4);
    const answers = new Uint8Array(adds.length);
    let added = 0;
    // In steps of 50,000 keys, the event loop let run between them (a few seconds in all, several times that on a
    // loaded machine: the worker must keep answering the runner).
    for (let at = 0; at < adds.length; at += 50_000) {
      for (let i = at; i < at + 50_000; i++) {
        expected[i] = single.add(adds[i]!) ? 1 : 0;
        expectedAdded += expected[i]!;
        hashInto(adds[i]!, 4, h, 'test');
        hashes.set(h, 4 * i);
      }
      added += batched.addHashes(hashes.subarray(4 * at, 4 * (at + 50_000)), 50_000, answers.subarray(at));
      await yieldToRunner();
    }
    expect(added).toBe(expectedAdded);
    expect(firstDifference(answers, expected)).toBeUndefined();
    expect(batched.subFilters().length).toBe(single.subFilters().length);
    expect(batched.subFilters().length).toBeGreaterThan(1);
    expect(firstDifference(batched.serialize(), single.serialize())).toBeUndefined();
    const probed = keys.slice(550_000);
    const batchAnswers = Uint8Array.from(batched.hasMany(probed), Number);
    expect(
      firstDifference(
        batchAnswers,
        Uint8Array.from(probed, (k) => Number(single.has(k))),
      ),
    ).toBeUndefined();
  });
});

describe('ScalableBloomFilter laws', () => {
  it('has no false negatives across growth boundaries', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 400 }),
        fc.integer({ min: 1, max: 20 }),
        fc.oneof(fc.constantFrom(1.125, 1.5, 2, 4), fc.double({ min: 1.125, max: 4, noNaN: true })),
        (keys, n0, growth) => {
          const filter = ScalableBloomFilter.create(n0, 0.01, { growth });
          filter.addAll(keys);
          for (const k of keys) expect(filter.has(k)).toBe(true);
          expect(filter.hasMany(keys).every(Boolean)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('add returns true exactly when the key was not found before, so no key is counted twice', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(60), { maxLength: 300 }), fc.integer({ min: 1, max: 10 }), (ids, n0) => {
        const filter = ScalableBloomFilter.create(n0, 0.05);
        let added = 0;
        const seen = new Set<number>();
        for (const id of ids) {
          const k = `id-${id}`;
          const before = filter.has(k);
          const result = filter.add(k);
          expect(result).toBe(!before);
          if (seen.has(id)) expect(result).toBe(false);
          seen.add(id);
          if (result) added++;
        }
        expect(filter.count).toBe(added);
        expect(filter.count).toBeLessThanOrEqual(seen.size);
      }),
      { numRuns: 300 },
    );
  });

  it('JSON.stringify and fromJSON round-trip (the file in base64); another kind is refused', () => {
    const filter = ScalableBloomFilter.create(50, 0.01, { seed: 8 });
    filter.addAll(urlKeys(700, 'json'));
    const text = JSON.stringify({ seen: filter });
    const restored = ScalableBloomFilter.fromJSON(JSON.parse(text).seen);
    expect(restored.serialize()).toEqual(filter.serialize());
    expect(ScalableBloomFilter.fromJSON(JSON.stringify(filter)).count).toBe(filter.count);
    expect(() => ScalableBloomFilter.fromJSON({ ...filter.toJSON(), kind: 'standard' })).toThrow(FormatError);
  });

  it('serializeParts() is serialize() in pieces, and deserialize reads any split of the bytes', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 300 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
        fc.boolean(),
        (added, cuts, copy) => {
          const filter = ScalableBloomFilter.create(20, 0.02, { seed: 5 });
          filter.addAll(added);
          const bytes = filter.serialize();
          expect(concat(filter.serializeParts())).toEqual(bytes);
          const restored = ScalableBloomFilter.deserialize(splitAt(bytes, cuts), { copy });
          expect(restored.equals(filter)).toBe(true);
          expect(restored.serialize()).toEqual(bytes);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('deserialize(serialize(f)) equals f mid-growth and keeps growing identically', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 300 }),
        fc.array(key, { maxLength: 100 }),
        fc.integer({ min: 1, max: 15 }),
        fc.boolean(),
        (first, then, n0, copy) => {
          const filter = ScalableBloomFilter.create(n0, 0.02, { seed: 3 });
          filter.addAll(first);
          const restored = ScalableBloomFilter.deserialize(filter.serialize(), { copy });
          expect(restored.equals(filter)).toBe(true);
          expect([restored.filterCount, restored.count, restored.bits]).toEqual([
            filter.filterCount,
            filter.count,
            filter.bits,
          ]);
          filter.addAll(then);
          restored.addAll(then);
          expect(restored.equals(filter)).toBe(true);
          expect(restored.serialize()).toEqual(filter.serialize());
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('ScalableBloomFilter growth', () => {
  it('chains sub-filters of ⌈c·g⌉ keys at P·(1 − r)·r^i, growing when the newest holds its capacity', () => {
    const filter = ScalableBloomFilter.create(100, 0.01, { growth: 4, tightening: 0.8 });
    filter.addAll(urlKeys(2200, 'grow'));
    const subs = filter.subFilters();
    expect(subs.map((s) => s.capacity)).toEqual([100, 400, 1600, 6400]);
    for (const [i, sub] of subs.entries()) expect(sub.fpr).toBeCloseTo(0.01 * 0.2 * 0.8 ** i, 15);
    expect(subs.slice(0, 3).every((s) => s.count === s.capacity)).toBe(true);
    expect(filter.count).toBe(subs.reduce((n, s) => n + s.count, 0));
    expect(filter.capacity).toBe(8500);
    expect(filter.hashes).toBe(subs[3]!.hashes);
    const fractional = ScalableBloomFilter.create(10, 0.01);
    fractional.addAll(urlKeys(100, 'grow-fractional'));
    expect(fractional.subFilters().map((s) => s.capacity)).toEqual([10, 15, 23, 35, 53]);
  });

  it('keeps the measured rate at most the target at 10×, 100× and 1000× its initial capacity, in at most 3× the bits', async () => {
    const filter = ScalableBloomFilter.create(1000, 0.01);
    const probes = urlKeys(1_000_000, 'scalable-absent', 11);
    let inserted = 0;
    for (const size of [10_000, 100_000, 1_000_000]) {
      const batch = urlKeys(size - inserted, `scalable-${size}`, size);
      // A new key is refused only when it is a false positive: well under 1% of them.
      let fresh = 0;
      for (let at = 0; at < batch.length; at += 100_000) {
        fresh += filter.addAll(batch.slice(at, at + 100_000));
        await yieldToRunner();
      }
      expect(fresh).toBeGreaterThan(batch.length * 0.99);
      inserted = size;
      let hits = 0;
      for (let at = 0; at < probes.length; at += 250_000) {
        hits += countHits(filter, probes.slice(at, at + 250_000));
        await yieldToRunner();
      }
      // At most the target (99.9% bound) ...
      expect(hits).toBeLessThanOrEqual(upperBoundCount(0.01, probes.length));
      // ... and within the bound of what its sub-filters predict.
      const shapes = filter
        .subFilters()
        .map((s) => ({ layout: 'partitioned' as const, bits: s.bits, hashes: s.hashes, n: s.count }));
      expect(hits).toBeLessThanOrEqual(fprUpperBoundCount(shapes, probes.length));
      const predicted = filter
        .subFilters()
        .reduce((p, s) => p + partitionedFalsePositiveRate(s.bits, s.count, s.hashes), 0);
      expect(predicted).toBeLessThanOrEqual(0.01);
    }
    // Memory against an ideal standard filter sized for 10^6 keys at 0.01 (2.34× here, a little after a growth;
    // the bound over every N is in schedule.spec.ts).
    expect(filter.bits / optimalBits(1_000_000, 0.01)).toBeLessThan(3);
    expect(filter.filterCount).toBe(16);
  });
});

describe('ScalableBloomFilter', () => {
  it('validates its parameters, naming them and their ranges', () => {
    expect(() => ScalableBloomFilter.create(0, 0.01)).toThrow(
      /ScalableBloomFilter.create: initialCapacity must be an integer in \[1, /,
    );
    expect(() => ScalableBloomFilter.create(10, 1)).toThrow(
      'ScalableBloomFilter.create: fpr must be in (0, 1), got number 1',
    );
    expect(() => ScalableBloomFilter.create(10, 0.1, { growth: 5 })).toThrow(
      'ScalableBloomFilter.create: growth must be a number in [1.125, 4], got number 5',
    );
    for (const tightening of [0, 1, 1.2, Number.NaN]) {
      expect(() => ScalableBloomFilter.create(10, 0.1, { tightening })).toThrow(
        /tightening must be in \(0, 1\)/,
      );
    }
    expect(() => ScalableBloomFilter.create(10, 0.1, { seed: -1 })).toThrow(InvalidArgumentError);
    const filter = ScalableBloomFilter.create(10, 0.1);
    expect(() => filter.add(3 as never)).toThrow(
      'ScalableBloomFilter.add: key must be a string or a Uint8Array, got number 3',
    );
    expect(() => filter.addAll(['a', null as never])).toThrow(/keys\[1\]/);
    expect(filter.count).toBe(0);
  });

  it('unions replicas of one stream, and refuses a union that would overfill a sub-filter', () => {
    const base = ScalableBloomFilter.create(1000, 0.01);
    base.addAll(urlKeys(1500, 'shared'));
    const replica = base.clone();
    replica.addAll(urlKeys(300, 'replica-only'));
    base.addAll(urlKeys(200, 'base-only'));
    const union = base.union(replica);
    for (const k of [
      ...urlKeys(1500, 'shared'),
      ...urlKeys(300, 'replica-only'),
      ...urlKeys(200, 'base-only'),
    ]) {
      expect(union.has(k)).toBe(true);
    }
    const other = ScalableBloomFilter.create(1000, 0.01);
    other.addAll(urlKeys(1500, 'disjoint'));
    expect(() => base.union(other)).toThrow(/sub-filter 0 would hold about \d+ keys for a capacity of 1000/);
    expect(() => base.union(ScalableBloomFilter.create(1000, 0.02))).toThrow(IncompatibleFiltersError);
  });

  it('intersects single sub-filter filters and refuses deeper chains', () => {
    const a = ScalableBloomFilter.create(100, 0.01);
    const b = ScalableBloomFilter.create(100, 0.01);
    a.addAll(['x', 'both']);
    b.addAll(['y', 'both']);
    expect(a.intersect(b).has('both')).toBe(true);
    a.addAll(urlKeys(200, 'deep'));
    expect(() => a.intersect(b)).toThrow(/cannot be intersected/);
  });

  it('reports compounded statistics', () => {
    const filter = ScalableBloomFilter.create(1000, 0.01);
    filter.addAll(urlKeys(5000, 'stats'));
    expect(Math.abs(filter.estimatedCount() / 5000 - 1)).toBeLessThan(0.03);
    const product = filter.subFilters().reduce((miss, s) => miss * (1 - s.expectedFpr()), 1);
    expect(filter.expectedFpr()).toBeCloseTo(1 - product, 12);
    expect(filter.expectedFpr()).toBeLessThan(0.01);
    expect(filter.fillRatio()).toBeGreaterThan(0.2);
    filter.clear();
    expect([filter.count, filter.filterCount, filter.has(urlKeys(1, 'stats')[0]!)]).toEqual([0, 1, false]);
  });

  it('deserialize rejects other kinds, forged sub-filter counts and mismatched sub-filters', () => {
    const filter = ScalableBloomFilter.create(10, 0.1, { seed: 5 });
    filter.addAll(urlKeys(30, 'forge'));
    const bytes = filter.serialize();
    expect(() => ScalableBloomFilter.deserialize(PartitionedBloomFilter.create(10, 0.1).serialize())).toThrow(
      /hold a filter of kind 2, not a scalable filter \(kind 4\)/,
    );
    const forged = bytes.slice();
    new DataView(forged.buffer).setUint32(24 + 32, 0xffffffff, true);
    expect(() => ScalableBloomFilter.deserialize(forged, { verifyChecksum: false })).toThrow(
      /4294967295 sub-filters cannot fit/,
    );
    const fewer = bytes.slice();
    new DataView(fewer.buffer).setUint32(24 + 32, filter.filterCount - 1, true);
    expect(() => ScalableBloomFilter.deserialize(fewer, { verifyChecksum: false })).toThrow(
      /bytes after the last sub-filter/,
    );
    const reseeded = bytes.slice();
    new DataView(reseeded.buffer).setUint32(8, 6, true);
    expect(() => ScalableBloomFilter.deserialize(reseeded, { verifyChecksum: false })).toThrow(
      /sub-filter 0 has seed 5, expected 6/,
    );
    const resized = bytes.slice();
    new DataView(resized.buffer).setFloat64(24, 11, true); // n0 is a u64; 11.0 as f64 bytes is a wrong capacity
    expect(() => ScalableBloomFilter.deserialize(resized, { verifyChecksum: false })).toThrow(FormatError);
    for (let cut = 0; cut < bytes.length; cut += 7) {
      expect(() => ScalableBloomFilter.deserialize(bytes.subarray(0, cut))).toThrow(FormatError);
    }
  });
});

describe('ScalableBloomFilter.from', () => {
  it('is create(max(1, keys), fpr) then addAll(keys), byte for byte, and grows from there', () => {
    const keys = urlKeys(500, 'from');
    const built = ScalableBloomFilter.from(keys, 0.01, { seed: 3 });
    const expected = ScalableBloomFilter.create(500, 0.01, { seed: 3 });
    expected.addAll(keys);
    expect(built.serialize()).toEqual(expected.serialize());
    expect([built.initialCapacity, built.filterCount]).toEqual([500, 1]);
    expect(ScalableBloomFilter.from([], 0.01).initialCapacity).toBe(1);
    expect(() => ScalableBloomFilter.from(['a', 1 as never], 0.01)).toThrow(
      'ScalableBloomFilter.from: keys[1] must be a string or a Uint8Array, got number 1',
    );
  });
});

describe('ScalableBloomFilter memory limit (maxBytes)', () => {
  it('stops growing at maxBytes with an error that changes nothing and names the bytes', () => {
    const filter = ScalableBloomFilter.create(100, 0.01, { maxBytes: 1_000 });
    let added = 0;
    let failure: unknown;
    for (let i = 0; i < 10_000 && failure === undefined; i++) {
      try {
        if (filter.add(`key-${i}`)) added++;
      } catch (error) {
        failure = error;
      }
    }
    expect(failure).toBeInstanceOf(BloomError);
    expect(String(failure)).toMatch(
      /growing to sub-filter \d+ \(\d+ keys\) needs \d+ more bytes, \d+ in all/,
    );
    const bytes = filter.serialize();
    expect(() => filter.add('one more new key')).toThrow(BloomError);
    expect(filter.serialize()).toEqual(bytes);
    expect(filter.count).toBe(added);
    // Reading the file back applies the reader's limit, not the writer's.
    const reopened = ScalableBloomFilter.deserialize(bytes, { maxBytes: 10_000 });
    expect(reopened.add('one more new key')).toBe(true);
  });
});

describe('ScalableBloomFilter.deserialize of a sub-filter of another version', () => {
  it('is a FormatError naming the sub-filter, not a newer file (FORMAT §3: the outer version was readable)', () => {
    const filter = ScalableBloomFilter.create(10, 0.01, { seed: 3 });
    filter.addAll(['a', 'b', 'c']);
    const bytes = filter.serialize().slice();
    bytes[24 + 48 + 4] = 2; // sub-filter 0 begins after the outer header (24) and params (48); its version byte
    new DataView(bytes.buffer).setUint32(bytes.length - 4, crc32c(bytes.subarray(0, -4)), true);
    const refusal = (() => {
      try {
        ScalableBloomFilter.deserialize(bytes);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(FormatError);
    expect(refusal).not.toBeInstanceOf(UnsupportedVersionError);
    expect((refusal as Error).message).toMatch(/sub-filter 0 has format version 2, the file 1/);
  });
});
