import {
  FormatError,
  falsePositiveRate,
  IncompatibleFiltersError,
  InvalidArgumentError,
} from '@bloomkit/core';
import { CounterArray, hashInto } from '@bloomkit/core/kit';
import { StandardBloomFilter } from '@bloomkit/standard';
import {
  assertInSlices,
  countHits,
  depth,
  fprUpperBoundCount,
  urlKeys,
  yieldToRunner,
} from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CountingBloomFilter } from '../src/index.js';

describe('CountingBloomFilter', () => {
  it('deletes: true and decremented when present, false and unchanged when certainly absent', () => {
    const filter = CountingBloomFilter.create(1000, 0.001);
    filter.add('a');
    filter.add('a');
    expect(filter.countOf('a')).toBe(2);
    expect(filter.delete('a')).toBe(true);
    expect(filter.has('a')).toBe(true);
    expect(filter.count).toBe(1);
    expect(filter.delete('a')).toBe(true);
    expect(filter.has('a')).toBe(false);
    expect(filter.count).toBe(0);
    const before = filter.serialize();
    expect(filter.delete('a')).toBe(false);
    expect(filter.serialize()).toEqual(before);
  });

  it('deleteMany, deleteHash and deleteHashes answer and change the counters as delete key by key, in order', async () => {
    const key = fc.oneof(
      fc.constantFrom('a', 'b', 'café', '\ud800', 'https://example.com/x'),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.uint8Array({ maxLength: 24 }),
    );
    await assertInSlices(
      fc.property(fc.array(key, { maxLength: 80 }), fc.array(key, { maxLength: 80 }), (added, doomed) => {
        const make = () => {
          const filter = CountingBloomFilter.create(200, 0.01, { seed: 21 });
          filter.addAll(added);
          return filter;
        };
        const [single, many, hashed, batch] = [make(), make(), make(), make()];
        const expected = doomed.map((k) => single.delete(k));
        expect(many.deleteMany(doomed)).toEqual(expected);
        const hash = new Int32Array(4);
        const hashes = new Int32Array(4 * doomed.length);
        doomed.forEach((k, j) => {
          hashInto(k, 21, hashes, 'test', 4 * j);
          hashInto(k, 21, hash, 'test');
          expect(hashed.deleteHash(hash)).toBe(expected[j]);
        });
        const answers = new Uint8Array(doomed.length);
        expect(batch.deleteHashes(hashes, doomed.length, answers)).toBe(expected.filter(Boolean).length);
        expect(Array.from(answers, (a) => a === 1)).toEqual(expected);
        for (const other of [many, hashed, batch]) {
          expect(other.count).toBe(single.count);
          expect(other.serialize()).toEqual(single.serialize());
        }
      }),
      { numRuns: depth(200), seed: 31, sliceRuns: 50 },
    );
  });

  it('deleteMany across many batches: every key deleted as many times as it was added, then absent', () => {
    const keys = urlKeys(30_000, 'delete-many');
    const filter = CountingBloomFilter.create(40_000, 0.01, { counterBits: 8 });
    filter.addAll(keys);
    filter.addAll(keys.slice(0, 10_000));
    const single = filter.clone();
    const doomed = [...keys, ...keys.slice(0, 12_000)];
    const answers = filter.deleteMany(doomed);
    // Compared as one string: a deep equal of 42,000 booleans is slower than the deletes.
    const bits = (list: readonly boolean[]) => list.map((yes) => (yes ? '1' : '0')).join('');
    expect(bits(answers)).toBe(bits(doomed.map((k) => single.delete(k))));
    expect(answers.slice(0, 40_000).every(Boolean)).toBe(true);
    expect(filter.serialize()).toEqual(single.serialize());
    expect(filter.count).toBe(single.count);
    // What is left: the false positives of an empty filter, that is none.
    expect(filter.hasMany(keys).some(Boolean)).toBe(false);
  });

  it('deleteMany and deleteHashes refuse bad arguments before deleting anything', () => {
    const filter = CountingBloomFilter.create(100, 0.01);
    filter.addAll(['a', 'b']);
    const before = filter.serialize();
    expect(() => filter.deleteMany(['a', 5 as never])).toThrow(/^CountingBloomFilter.deleteMany: keys\[1\]/);
    expect(() => filter.deleteMany('ab' as never)).toThrow(InvalidArgumentError);
    const hashes = new Int32Array(8);
    expect(() => filter.deleteHashes(hashes, 3)).toThrow(/CountingBloomFilter.deleteHashes: count/);
    expect(() => filter.deleteHashes(hashes, 2, new Uint8Array(1))).toThrow(/answers must be a Uint8Array/);
    expect(() => filter.deleteHashes([] as never, 0)).toThrow(/hashes must be an Int32Array/);
    expect(filter.serialize()).toEqual(before);
  });

  it('after adding n keys and deleting half, the rate is that of a filter holding the other half', async () => {
    const n = 100_000;
    const filter = CountingBloomFilter.create(n, 0.01);
    const keys = urlKeys(n, 'counted');
    filter.addAll(keys);
    const kept = keys.slice(0, n / 2);
    // One assertion over all keys: an expect per key cost more than the filter's work.
    expect(keys.slice(n / 2).filter((key) => !filter.delete(key))).toEqual([]);
    expect(kept.filter((key) => !filter.has(key))).toEqual([]);

    // Exact: the counters are those of a filter that only ever held the kept half.
    const reference = new StandardBloomFilter({ bits: filter.bits, hashes: filter.hashes });
    reference.addAll(kept);
    expect(filter.toStandard().equals(reference)).toBe(true);

    const probes = urlKeys(depth(1_000_000), 'counted-absent', 7);
    await yieldToRunner();
    let hits = 0;
    for (let at = 0; at < probes.length; at += 200_000) {
      hits += countHits(filter, probes.slice(at, at + 200_000));
      await yieldToRunner();
    }
    const bound = fprUpperBoundCount(
      [{ layout: 'standard', bits: filter.bits, hashes: filter.hashes, n: n / 2 }],
      probes.length,
    );
    expect(hits).toBeLessThanOrEqual(bound);
    expect(hits / probes.length).toBeLessThan(falsePositiveRate(filter.bits, n, filter.hashes) / 4);
  });

  it.each([4, 8, 16] as const)(
    '%i-bit counters past 256 KiB (the batch kernel for 4 and 8): addAll and hasMany are add and has key by key, before and after a copy, and deletes after them leave no false negative',
    (counterBits) => {
      const keys = [...urlKeys(60_000, 'batch'), ...urlKeys(20_000, 'batch')]; // 20,000 repeats
      const hot = Array.from({ length: 300 }, () => 'hot key'); // past every counter's maximum but 16-bit's
      const batched = CountingBloomFilter.create(100_000, 0.01, { counterBits, seed: 3 });
      const single = CountingBloomFilter.create(100_000, 0.01, { counterBits, seed: 3 });
      expect(batched.addAll([...keys, ...hot])).toBe([...keys, ...hot].filter((k) => single.add(k)).length);
      expect(Buffer.from(batched.serialize()).equals(Buffer.from(single.serialize()))).toBe(true);
      const probes = [...urlKeys(5000, 'batch'), ...urlKeys(5000, 'batch-absent'), 'hot key'];
      const expected = probes.map((k) => single.has(k));
      expect(batched.hasMany(probes)).toEqual(expected);
      const copy = CountingBloomFilter.deserialize(batched.serialize(), { copy: true });
      expect(copy.hasMany(probes)).toEqual(expected);
      const more = urlKeys(10_000, 'batch-more');
      expect(copy.addAll(more)).toBe(more.filter((k) => single.add(k)).length);
      expect(Buffer.from(copy.serialize()).equals(Buffer.from(single.serialize()))).toBe(true);
      for (const key of keys.slice(0, 30_000)) expect(copy.delete(key)).toBe(true);
      expect(copy.hasMany(keys.slice(30_000)).every(Boolean)).toBe(true);
      expect(copy.hasMany(more).every(Boolean)).toBe(true);
    },
  );

  it('toStandard answers has exactly as the counting filter, with the same m, k and seed', () => {
    const filter = CountingBloomFilter.create(5000, 0.01, { seed: 9, counterBits: 8 });
    filter.addAll(urlKeys(5000, 'ts'));
    filter.delete(urlKeys(1, 'ts')[0]!);
    const standard = filter.toStandard();
    expect([standard.bits, standard.hashes, standard.seed]).toEqual([filter.bits, filter.hashes, 9]);
    const probes = [...urlKeys(5000, 'ts'), ...urlKeys(20_000, 'ts-absent')];
    expect(probes.every((k) => standard.has(k) === filter.has(k))).toBe(true);
  });

  it('uses 4-bit counters by default and takes 8 or 16', () => {
    expect(CountingBloomFilter.create(100, 0.01).counterBits).toBe(4);
    const wide = CountingBloomFilter.create(100, 0.01, { counterBits: 16 });
    expect(wide.serialize().length).toBe(64 + wide.bits * 2 + 4);
    expect(() => CountingBloomFilter.create(100, 0.01, { counterBits: 5 as never })).toThrow(
      'CountingBloomFilter.create: counterBits must be one of 4, 8, 16, got number 5',
    );
    expect(() => new CountingBloomFilter({ bits: 10, hashes: 2, counterBits: 2 as never })).toThrow(
      InvalidArgumentError,
    );
  });

  it('rejects existing counters of the wrong size or width with a typed error', () => {
    expect(
      () =>
        new CountingBloomFilter(
          { bits: 10, hashes: 2, counterBits: 8 },
          { storage: new CounterArray(10, 4) },
        ),
    ).toThrow('new CountingBloomFilter: state.storage must hold 8-bit counters, got 4-bit');
    expect(
      () => new CountingBloomFilter({ bits: 10, hashes: 2 }, { storage: new CounterArray(9, 4) }),
    ).toThrow(InvalidArgumentError);
  });

  it('refuses to combine filters of another width, shape or seed', () => {
    const a = CountingBloomFilter.create(100, 0.01);
    expect(() => a.union(CountingBloomFilter.create(100, 0.01, { counterBits: 8 }))).toThrow(
      /counterBits 4 vs 8/,
    );
    expect(() => a.intersect(CountingBloomFilter.create(100, 0.01, { seed: 3 }))).toThrow(
      IncompatibleFiltersError,
    );
  });

  it('union adds multiplicities; intersect keeps keys present in both', () => {
    const a = CountingBloomFilter.create(100, 0.001);
    const b = CountingBloomFilter.create(100, 0.001);
    a.add('x');
    a.add('both');
    b.add('y');
    b.add('both');
    const union = a.union(b);
    expect(union.countOf('both')).toBe(2);
    expect(union.delete('both') && union.has('both')).toBe(true);
    const intersection = a.intersect(b);
    expect(intersection.has('both')).toBe(true);
    expect(intersection.has('x') || intersection.has('y')).toBe(false);
  });

  it('rejects bad keys everywhere, leaving the filter unchanged', () => {
    const filter = CountingBloomFilter.create(100, 0.01);
    filter.add('a');
    const before = filter.serialize();
    expect(() => filter.delete(5 as never)).toThrow(
      'CountingBloomFilter.delete: key must be a string or a Uint8Array, got number 5',
    );
    expect(() => filter.countOf({} as never)).toThrow(InvalidArgumentError);
    expect(filter.serialize()).toEqual(before);
  });

  it('deserialize checks the counter width, payload size and padding nibble', () => {
    const bytes = new CountingBloomFilter({ bits: 3, hashes: 1 }).serialize();
    const wrongWidth = bytes.slice();
    wrongWidth[36] = 0;
    expect(() => CountingBloomFilter.deserialize(wrongWidth, { verifyChecksum: false })).toThrow(
      /counter width must be 4, 8 or 16, got 0/,
    );
    const widened = bytes.slice();
    widened[36] = 8;
    expect(() => CountingBloomFilter.deserialize(widened, { verifyChecksum: false })).toThrow(
      /payload must be 3 bytes for 3 counters of 8 bits, got 2/,
    );
    const padded = bytes.slice();
    padded[65] = 0x10;
    expect(() => CountingBloomFilter.deserialize(padded, { verifyChecksum: false })).toThrow(/unused nibble/);
    expect(() => CountingBloomFilter.deserialize(StandardBloomFilter.create(5, 0.1).serialize())).toThrow(
      FormatError,
    );
  });
});
