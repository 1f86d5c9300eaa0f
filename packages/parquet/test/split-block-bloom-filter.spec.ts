import { FormatError, IncompatibleFiltersError, InvalidArgumentError } from '@bloomkit/core';
import { firstDifference, yieldToRunner } from '@bloomkit/testkit';
import fc from 'fast-check';
import { sbbfContains, sbbfInsert } from 'hyparquet/src/bloom.js';
import { xxhash64 } from 'hyparquet/src/xxhash.js';
import { describe, expect, it } from 'vitest';
import {
  parquetBitsetBytes,
  SplitBlockBloomFilter,
  splitBlockBitsetBytes,
  splitBlockFalsePositiveRate,
  xxh64,
} from '../src/index.js';

const RUNS = Number(process.env.BLOOMKIT_FUZZ_RUNS ?? 2000);
const encoder = new TextEncoder();

/** A value's plain bytes as Parquet hashes them, written independently of the package (DataView). */
function plain(type: string, value: unknown): Uint8Array {
  const view = new DataView(new ArrayBuffer(8));
  switch (type) {
    case 'INT32':
      view.setInt32(0, Number(value), true);
      return new Uint8Array(view.buffer, 0, 4);
    case 'INT64':
      view.setBigInt64(0, BigInt(value as number), true);
      return new Uint8Array(view.buffer, 0, 8);
    case 'FLOAT':
      view.setFloat32(0, value as number, true);
      return new Uint8Array(view.buffer, 0, 4);
    case 'DOUBLE':
      view.setFloat64(0, value as number, true);
      return new Uint8Array(view.buffer, 0, 8);
    case 'BOOLEAN':
      return Uint8Array.of(value ? 1 : 0);
    default:
      return typeof value === 'string' ? encoder.encode(value) : (value as Uint8Array);
  }
}

describe('SplitBlockBloomFilter', () => {
  it('hashes as hyparquet (BigInt XXH64) does, and sets the bits hyparquet sets, for every type', async () => {
    const cases: [string, fc.Arbitrary<unknown>][] = [
      ['BYTE_ARRAY', fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 100 }))],
      ['FIXED_LEN_BYTE_ARRAY', fc.uint8Array({ minLength: 16, maxLength: 16 })],
      ['INT32', fc.integer()],
      ['INT64', fc.oneof(fc.maxSafeInteger(), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: 0 }))],
      ['FLOAT', fc.float()],
      ['DOUBLE', fc.double()],
      ['BOOLEAN', fc.boolean()],
    ];
    for (const [type, values] of cases) {
      fc.assert(
        fc.property(fc.array(values, { maxLength: 30 }), fc.integer({ min: 0, max: 8 }), (list, log) => {
          const ours = SplitBlockBloomFilter.ofSize(32 * 2 ** log, { type: type as never });
          const theirs = new Uint32Array(8 * 2 ** log);
          for (const value of list) {
            const hash = xxhash64(plain(type, value));
            expect(xxh64(plain(type, value))).toBe(hash);
            sbbfInsert(theirs, hash);
            ours.add(value as never);
            expect(ours.hasHash(hash)).toBe(true);
            expect(sbbfContains(theirs, hash)).toBe(true);
          }
          expect(firstDifference(ours.bitset(), new Uint8Array(theirs.buffer))).toBeUndefined();
          const batch = SplitBlockBloomFilter.ofSize(32 * 2 ** log, { type: type as never });
          batch.addAll(list as never[]);
          expect(batch.equals(ours)).toBe(true);
          expect(batch.hasMany(list as never[]).every(Boolean)).toBe(true);
        }),
        { numRuns: Math.ceil(RUNS / 10) },
      );
      // Seconds per type on a loaded machine: the worker answers the runner between them.
      await yieldToRunner();
    }
  });

  it('takes INT64 as a bigint or a safe number alike, in the whole two-complement range', () => {
    const filter = SplitBlockBloomFilter.ofSize(1024, { type: 'INT64' });
    for (const value of [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 123456789012345n, -(2n ** 53n) + 1n]) {
      filter.add(value);
      expect(filter.hasHash(xxhash64(plain('INT64', value)))).toBe(true);
      if (value >= -(2n ** 53n) + 1n && value <= 2n ** 53n - 1n) expect(filter.has(Number(value))).toBe(true);
    }
  });

  it('keeps −0 and +0 apart (their IEEE bytes differ, as in every writer)', () => {
    const filter = SplitBlockBloomFilter.ofSize(4096, { type: 'DOUBLE' });
    filter.add(0);
    expect(filter.hasHash(xxhash64(plain('DOUBLE', 0)))).toBe(true);
    expect(xxh64(plain('DOUBLE', -0))).not.toBe(xxh64(plain('DOUBLE', 0)));
    expect(filter.has(-0)).toBe(false);
  });

  it('refuses a value of another type than the column with a typed error naming the type, and changes nothing', () => {
    const ints = SplitBlockBloomFilter.ofSize(64, { type: 'INT32' });
    expect(() => ints.add('7' as never)).toThrow(InvalidArgumentError);
    expect(() => ints.has(2 ** 31)).toThrow(
      /value must be an integer in \[-2\^31, 2\^31 - 1\].*column of type INT32, got number 2147483648/,
    );
    expect(() => ints.has(1.5)).toThrow(/column of type INT32/);
    expect(() => ints.addAll([1, 2, 'x' as never])).toThrow(/values\[2\]/);
    expect(ints.fillRatio()).toBe(0);
    const longs = SplitBlockBloomFilter.ofSize(64, { type: 'INT64' });
    expect(() => longs.add(2 ** 53)).toThrow(/safe integer/);
    expect(() => longs.add(2n ** 63n)).toThrow(/column of type INT64/);
    const strings = SplitBlockBloomFilter.ofSize(64);
    expect(() => strings.add(7 as never)).toThrow(
      /a string or a Uint8Array for a column of type BYTE_ARRAY, got number 7/,
    );
    expect(() => strings.addAll('abc' as never)).toThrow(/got a string/);
    expect(() => SplitBlockBloomFilter.ofSize(64, { type: 'INT96' as never })).toThrow(/type must be one of/);
    expect(() => SplitBlockBloomFilter.ofSize(48)).toThrow(/power of two in \[32, 134217728\], got 48/);
    expect(() => SplitBlockBloomFilter.create(100, 0.01, { seed: 1 as never })).toThrow(/seed must be 0/);
    expect(() => SplitBlockBloomFilter.create(0, 0.01)).toThrow(/capacity/);
    expect(() => SplitBlockBloomFilter.create(10, 1)).toThrow(/fpr/);
    expect(() => ints.addHash(-1n)).toThrow(/hash must be a bigint in \[0, 2\^64 - 1\]/);
  });

  it('hashes strings in batches as one at a time: ASCII, non-ASCII, lone surrogates, long and empty', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 30 }),
            fc.string({ maxLength: 300 }),
            fc.constant(''),
          ),
          {
            maxLength: 60,
          },
        ),
        (values) => {
          const batch = SplitBlockBloomFilter.ofSize(256);
          const single = SplitBlockBloomFilter.ofSize(256);
          batch.addAll(values);
          for (const value of values) single.add(value);
          expect(batch.equals(single)).toBe(true);
        },
      ),
      { numRuns: Math.ceil(RUNS / 10) },
    );
    // Past one kernel batch (1024 values, and the window's bytes).
    const many = Array.from({ length: 5000 }, (_, i) => `https://example.com/${i}/${'x'.repeat(i % 97)}`);
    const batch = SplitBlockBloomFilter.ofSize(1 << 14);
    expect(batch.addAll(many)).toBe(5000);
    expect(batch.hasMany(many).every(Boolean)).toBe(true);
    expect(many.every((value) => batch.has(value))).toBe(true);
    const huge = 'é'.repeat(200_000);
    batch.add(huge);
    expect(batch.hasMany(['a', huge, 'b'])[1]).toBe(true);
  });

  it('keeps its rate: measured false positives at capacity agree with the formula and stay under the target', () => {
    const n = 20_000;
    for (const fpr of [0.05, 0.01, 0.001]) {
      const filter = SplitBlockBloomFilter.create(n, fpr);
      filter.addAll(Array.from({ length: n }, (_, i) => `key-${i}`));
      const probes = 200_000;
      const hits = filter
        .hasMany(Array.from({ length: probes }, (_, i) => `absent-${i}`))
        .filter(Boolean).length;
      const predicted = splitBlockFalsePositiveRate(filter.blocks, n);
      expect(predicted).toBeLessThanOrEqual(fpr);
      // Binomial: within 5 standard deviations of the prediction.
      const sd = Math.sqrt(probes * predicted * (1 - predicted));
      expect(Math.abs(hits - probes * predicted)).toBeLessThan(5 * sd + 3);
      expect(Math.abs(filter.expectedFpr() - predicted) / predicted).toBeLessThan(0.15);
      expect(Math.abs(filter.estimatedCount() - n) / n).toBeLessThan(0.02);
    }
  });

  it("sizes as the Parquet writers do ('parquet'), and by the exact rate by default", () => {
    // parquet-java, arrow-rs, DuckDB: -8·ndv / ln(1 - fpp^(1/8)) bits, whole bytes, [32 B, 128 MiB], a power of two.
    expect(parquetBitsetBytes(0, 0.01)).toBe(32);
    expect(parquetBitsetBytes(1500, 0.01)).toBe(2048);
    expect(parquetBitsetBytes(3000, 0.01)).toBe(4096);
    expect(parquetBitsetBytes(5000, 0.01)).toBe(8192);
    expect(parquetBitsetBytes(1e9, 0.01)).toBe(128 * 1024 * 1024);
    expect(SplitBlockBloomFilter.create(3000, 0.01, { sizing: 'parquet' }).blocks).toBe(128);
    for (const [n, p] of [
      [1000, 0.01],
      [100_000, 0.001],
      [10, 0.5],
    ] as const) {
      const filter = SplitBlockBloomFilter.create(n, p);
      expect(filter.blocks * 32).toBe(splitBlockBitsetBytes(n, p));
      expect(splitBlockFalsePositiveRate(filter.blocks, n)).toBeLessThanOrEqual(p);
      if (filter.blocks > 1) expect(splitBlockFalsePositiveRate(filter.blocks / 2, n)).toBeGreaterThan(p);
    }
    expect(() => SplitBlockBloomFilter.create(1e12, 1e-9)).toThrow(/128 MiB/);
    expect(() => splitBlockBitsetBytes(1e12, 1e-9)).toThrow(/^splitBlockBitsetBytes: .*128 MiB/);
    expect(() => splitBlockBitsetBytes(0, 0.01)).toThrow(/capacity must be an integer in \[1, /);
    expect(() => splitBlockBitsetBytes(10, 0)).toThrow(/fpr/);
  });

  it('folds to the filter built at the smaller size, bit for bit; foldTo keeps the rate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { maxLength: 200 }),
        fc.integer({ min: 0, max: 6 }),
        (values, times) => {
          const large = SplitBlockBloomFilter.ofSize(32 * 64);
          large.addAll(values);
          const small = SplitBlockBloomFilter.ofSize((32 * 64) / 2 ** times);
          small.addAll(values);
          expect(large.fold(times).equals(small)).toBe(true);
        },
      ),
      { numRuns: Math.ceil(RUNS / 10) },
    );
    const filter = SplitBlockBloomFilter.ofSize(1 << 20);
    filter.addAll(Array.from({ length: 1000 }, (_, i) => `v${i}`));
    const folded = filter.foldTo(0.01);
    expect(folded.blocks).toBeLessThan(filter.blocks);
    expect(folded.expectedFpr()).toBeLessThanOrEqual(0.01);
    expect(folded.fold(1).expectedFpr()).toBeGreaterThan(0.01);
    expect(Array.from({ length: 1000 }, (_, i) => folded.has(`v${i}`)).every(Boolean)).toBe(true);
    expect(() => filter.fold(16)).toThrow(/times must be an integer in \[0, 15\]/);
  });

  it('union is insert-all; intersect holds the common values; both refuse another size or type', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.array(fc.string()), (a, b) => {
        const left = SplitBlockBloomFilter.ofSize(512);
        const right = SplitBlockBloomFilter.ofSize(512);
        const all = SplitBlockBloomFilter.ofSize(512);
        left.addAll(a);
        right.addAll(b);
        all.addAll([...a, ...b]);
        expect(left.union(right).equals(all)).toBe(true);
        const both = left.intersect(right);
        for (const value of a.filter((v) => b.includes(v))) expect(both.has(value)).toBe(true);
      }),
      { numRuns: Math.ceil(RUNS / 10) },
    );
    const a = SplitBlockBloomFilter.ofSize(512);
    expect(() => a.union(SplitBlockBloomFilter.ofSize(1024))).toThrow(IncompatibleFiltersError);
    expect(() => a.union(SplitBlockBloomFilter.ofSize(512, { type: 'INT32' }))).toThrow(
      /BYTE_ARRAY vs 2 blocks? of INT32|differ/,
    );
  });

  it('round-trips through the bloomkit envelope, its JSON and Parquet bytes; copy: false works in place', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer({ min: 0, max: 5 }), (values, log) => {
        const filter = SplitBlockBloomFilter.ofSize(32 << log, { type: 'INT32' });
        filter.addAll(values);
        const read = SplitBlockBloomFilter.deserialize(filter.serialize());
        expect(read.equals(filter)).toBe(true);
        expect([read.type, read.count, read.blocks]).toEqual([filter.type, filter.count, filter.blocks]);
        expect(SplitBlockBloomFilter.fromJSON(JSON.stringify(filter)).equals(filter)).toBe(true);
        const parquet = SplitBlockBloomFilter.fromParquet(filter.toParquet(), { type: 'INT32' });
        expect(parquet.equals(filter)).toBe(true);
        expect(parquet.toParquet()).toEqual(filter.toParquet());
      }),
      { numRuns: Math.ceil(RUNS / 10) },
    );
    const created = SplitBlockBloomFilter.create(100, 0.01, { type: 'DOUBLE' });
    created.add(1.5);
    const bytes = created.serialize();
    const inPlace = SplitBlockBloomFilter.deserialize(bytes, { copy: false });
    expect([inPlace.capacity, inPlace.fpr]).toEqual([100, 0.01]);
    inPlace.add(2.5);
    expect(() => SplitBlockBloomFilter.deserialize(bytes)).toThrow(/checksum/);
    inPlace.syncBytes();
    const again = SplitBlockBloomFilter.deserialize(bytes);
    expect([again.has(1.5), again.has(2.5), again.count]).toEqual([true, true, 2]);
  });

  it('refuses corrupt or foreign envelopes with a FormatError', () => {
    const bytes = SplitBlockBloomFilter.ofSize(64).serialize();
    for (const [offset, value, message] of [
      [6, 1, /hash algorithm must be 2 \(XXH64\), got 1/],
      [8, 1, /seed must be 0/],
      [24, 3, /blocks must be a power of two/],
      [28, 3, /physical type must be/],
      [29, 1, /params bytes 5-7 must be 0/],
    ] as const) {
      const copy = bytes.slice();
      copy[offset] = value;
      expect(
        () => SplitBlockBloomFilter.deserialize(copy, { verifyChecksum: false }),
        String(offset),
      ).toThrow(message);
      expect(() => SplitBlockBloomFilter.deserialize(copy, { verifyChecksum: false })).toThrow(FormatError);
    }
  });
});
