import { FormatError, IncompatibleFiltersError, InvalidArgumentError } from '@bloomkit/core';
import { hashInto } from '@bloomkit/core/kit';
import { binaryKeys, urlKeys } from '@bloomkit/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { setKernelBackend } from '../../core/src/kernel/backend.js';
import { fingerprintOf, firstBucket, otherBucket } from '../src/cuckoo-hash.js';
import { rateAt } from '../src/cuckoo-shape.js';
import { CapacityError, CuckooFilter } from '../src/index.js';

describe('CuckooFilter.create', () => {
  it('sizes any capacity without rounding the table to a power of two', () => {
    for (const capacity of [1, 7, 1000, 100_003, 300_007]) {
      const filter = CuckooFilter.create(capacity, 0.01);
      expect(filter.buckets).toBe(Math.ceil(capacity / (4 * 0.9)));
      expect(filter.bucketSize).toBe(4);
      expect(filter.fingerprintBits).toBe(10);
    }
    expect(CuckooFilter.create(300_007, 0.01).buckets).toBe(83_336);
  });

  it('holds 1% in at most 12.5 bits a key and 0.1% in at most 16, and meets the rate at capacity by the formula', () => {
    for (const capacity of [100_000, 300_007, 1_000_000]) {
      for (const [fpr, most] of [
        [0.01, 12.5],
        [0.001, 16],
      ] as const) {
        const filter = CuckooFilter.create(capacity, fpr);
        expect(filter.bitsPerKey).toBeLessThanOrEqual(most);
        expect(rateAt(filter, capacity / (filter.buckets * filter.bucketSize))).toBeLessThanOrEqual(fpr);
      }
    }
  });

  it('picks the fewest fingerprint bits for each bucket size', () => {
    expect(
      [2, 4, 8].map((bucketSize) => CuckooFilter.create(1000, 0.01, { bucketSize: bucketSize as 2 | 4 | 8 })),
    ).toMatchObject([{ fingerprintBits: 9 }, { fingerprintBits: 10 }, { fingerprintBits: 11 }]);
    expect(CuckooFilter.create(1000, 0.2).fingerprintBits).toBe(6);
    expect(CuckooFilter.create(1000, 0.5).fingerprintBits).toBe(4);
    expect(CuckooFilter.create(1000, 1e-6).fingerprintBits).toBe(23);
  });

  it('refuses bad arguments with typed errors that name them', () => {
    const bad: [() => unknown, RegExp][] = [
      [() => CuckooFilter.create(0, 0.01), /capacity must be an integer in \[1, /],
      [() => CuckooFilter.create(1.5, 0.01), /capacity must be an integer/],
      [() => CuckooFilter.create(10, 0), /fpr must be in \(0, 1\)/],
      [() => CuckooFilter.create(10, 1), /fpr must be in \(0, 1\)/],
      [() => CuckooFilter.create(10, Number.NaN), /fpr must be in \(0, 1\)/],
      [() => CuckooFilter.create(10, 1e-9), /fpr must be in \(4\.\d+e-7, 1\)/],
      [
        () => CuckooFilter.create(10, 0.01, { bucketSize: 3 as 4 }),
        /bucketSize must be one of 2, 4, 8, got number 3/,
      ],
      [() => CuckooFilter.create(10, 0.01, { seed: -1 }), /seed must be an integer in \[0, 2\^32 - 1\]/],
      [() => CuckooFilter.create(1e9, 1e-6), /past the most a cuckoo filter holds \(2 GiB\)/],
      [() => CuckooFilter.create(1e8, 0.01, { maxBytes: 1000 }), /more than maxBytes \(1000\)/],
    ];
    for (const [call, message] of bad) {
      expect(call).toThrow(InvalidArgumentError);
      expect(call).toThrow(message);
    }
  });
});

describe('CuckooFilter hashed keys', () => {
  it('refuses a short array or an offset past its end, changing nothing (no phantom key 0,0,0,0)', () => {
    const filter = CuckooFilter.create(1_000, 0.01);
    filter.add('kept');
    const before = filter.serialize();
    for (const [hash, at] of [
      [new Int32Array(2), 0],
      [new Int32Array(8), 6],
      [new Int32Array(8), 0.5],
    ] as const) {
      expect(() => filter.addHash(hash, at)).toThrow(/CuckooFilter\.addHash: hash must be an Int32Array/);
      expect(() => filter.hasHash(hash, at)).toThrow(InvalidArgumentError);
      expect(() => filter.deleteHash(hash, at)).toThrow(InvalidArgumentError);
    }
    expect(filter.serialize()).toEqual(before);
    expect(filter.hasHash(new Int32Array(4))).toBe(false);
  });
});

describe('CuckooFilter keys', () => {
  it('adds, answers, counts copies and deletes one copy at a time', () => {
    const filter = CuckooFilter.create(1000, 0.01, { seed: 3 });
    expect(filter.add('apple')).toBe(true);
    expect(filter.add('apple')).toBe(false);
    expect(filter.add('pear')).toBe(true);
    expect([filter.size, filter.count, filter.countOf('apple'), filter.countOf('pear')]).toEqual([
      3, 3, 2, 1,
    ]);
    expect(filter.delete('apple')).toBe(true);
    expect([filter.has('apple'), filter.countOf('apple')]).toEqual([true, 1]);
    expect(filter.delete('apple')).toBe(true);
    expect([filter.has('apple'), filter.countOf('apple'), filter.delete('apple')]).toEqual([false, 0, false]);
    expect([filter.has('pear'), filter.size, filter.loadFactor]).toEqual([true, 1, 1 / (filter.buckets * 4)]);
  });

  it('stores a key as the fingerprint and buckets FORMAT §3.9 gives', () => {
    const filter = CuckooFilter.create(50, 0.01, { seed: 9 });
    filter.add('https://example.com/a');
    const hash = new Int32Array(4);
    hashInto('https://example.com/a', 9, hash, 'test');
    const fp = fingerprintOf(hash[1]!, 2 ** filter.fingerprintBits - 1);
    const i1 = firstBucket(hash[0]!, filter.buckets);
    expect(fp).toBe(((hash[1]! >>> 0) % 1023) + 1);
    expect(i1).toBe((hash[0]! >>> 0) % filter.buckets);
    // The first slot of the first bucket, packed most significant bit first.
    const payload = filter.serialize().subarray(24 + 32);
    const bit = i1 * 4 * 10;
    let slot = 0;
    for (let i = 0; i < 10; i++)
      slot = (slot << 1) | ((payload[(bit + i) >> 3]! >> (7 - ((bit + i) & 7))) & 1);
    expect(slot).toBe(fp);
  });

  it('has an alternate bucket rule that is an involution for any bucket count', () => {
    for (const buckets of [1, 2, 3, 277_778, 1_000_003, 2 ** 31 - 1]) {
      for (let fp = 1; fp < 5000; fp += 7) {
        for (const bucket of [0, 1, Math.floor(buckets / 2), buckets - 1]) {
          if (bucket >= buckets) continue;
          const other = otherBucket(bucket, fp, buckets);
          expect(other).toBeGreaterThanOrEqual(0);
          expect(other).toBeLessThan(buckets);
          expect(otherBucket(other, fp, buckets)).toBe(bucket);
        }
      }
    }
  });

  it('takes strings and bytes alike (a string is its UTF-8 bytes) and refuses other keys', () => {
    const filter = CuckooFilter.create(100, 0.01);
    filter.add('héllo');
    expect(filter.has(new TextEncoder().encode('héllo'))).toBe(true);
    for (const call of [
      () => filter.add(5 as unknown as string),
      () => filter.has(null as unknown as string),
      () => filter.delete({} as unknown as string),
      () => filter.addAll('abc' as unknown as string[]),
      () => filter.hasMany([1] as unknown as string[]),
    ]) {
      expect(call).toThrow(InvalidArgumentError);
    }
    expect(filter.size).toBe(1);
  });

  it('answers batches as single keys do, with WebAssembly hashing and without', () => {
    const keys = [...urlKeys(3000, 'batch'), ...binaryKeys(500, 7)];
    const probes = [...keys.slice(0, 1000), ...urlKeys(2000, 'absent')];
    const answers: boolean[][] = [];
    for (const backend of ['auto', 'javascript'] as const) {
      setKernelBackend(backend);
      const batch = CuckooFilter.create(4000, 0.01, { seed: 11 });
      const single = CuckooFilter.create(4000, 0.01, { seed: 11 });
      expect(batch.addAll(keys)).toBe(keys.filter((key) => single.add(key)).length);
      expect(batch.equals(single)).toBe(true);
      const many = batch.hasMany(probes);
      expect(many).toEqual(probes.map((key) => single.has(key)));
      answers.push(many);
      expect(batch.deleteAll(keys.slice(0, 100))).toBe(100);
      for (const key of keys.slice(0, 100)) single.delete(key);
      expect(batch.equals(single)).toBe(true);
    }
    expect(answers[0]).toEqual(answers[1]);
  });

  afterEach(() => setKernelBackend('auto'));

  it('answers hashed batches as hashed single keys (the CLI path)', () => {
    const filter = CuckooFilter.create(100, 0.01, { seed: 5 });
    const twin = CuckooFilter.create(100, 0.01, { seed: 5 });
    const keys = urlKeys(60, 'hashes');
    const hashes = new Int32Array(4 * keys.length);
    keys.forEach((key, j) => {
      hashInto(key, 5, hashes, 'test', 4 * j);
    });
    const answers = new Uint8Array(keys.length);
    expect(filter.addHashes(hashes, keys.length, answers)).toBe(keys.filter((key) => twin.add(key)).length);
    expect(filter.equals(twin)).toBe(true);
    filter.hasHashes(hashes, keys.length, answers);
    expect([...answers]).toEqual(keys.map(() => 1));
    expect(filter.deleteHashes(hashes, 10, answers)).toBe(10);
    expect(() => filter.hasHashes(hashes, keys.length + 1, answers)).toThrow(InvalidArgumentError);
    expect(() => filter.addHashes(new Uint32Array(4) as unknown as Int32Array, 1)).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('CuckooFilter as a whole', () => {
  it('unions as if the other filter’s keys were added, and refuses other shapes', () => {
    const a = CuckooFilter.create(2000, 0.01, { seed: 1 });
    const b = CuckooFilter.create(2000, 0.01, { seed: 1 });
    const left = urlKeys(700, 'left');
    const right = urlKeys(700, 'right');
    a.addAll(left);
    b.addAll(right);
    b.add(left[0]!);
    const both = a.union(b);
    expect(both.size).toBe(1401);
    expect(both.countOf(left[0]!)).toBeGreaterThanOrEqual(2);
    for (const key of [...left, ...right]) expect(both.has(key)).toBe(true);
    expect(a.size).toBe(700);
    expect(() => a.union(CuckooFilter.create(2000, 0.01, { seed: 2 }))).toThrow(IncompatibleFiltersError);
    expect(() => a.union(CuckooFilter.create(3000, 0.01, { seed: 1 }))).toThrow(IncompatibleFiltersError);
    expect(() => a.intersect(b)).toThrow(/no intersection/);
    const full = CuckooFilter.create(1000, 0.01);
    full.addAll(urlKeys(1000, 'full'));
    const before = full.serialize();
    expect(() => full.union(full)).toThrow(CapacityError);
    expect(full.serialize()).toEqual(before);
  });

  it('clones, compares and clears', () => {
    const filter = CuckooFilter.create(100, 0.01);
    filter.addAll(urlKeys(50, 'clone'));
    const copy = filter.clone();
    expect(copy.equals(filter)).toBe(true);
    copy.add('one more');
    expect(copy.equals(filter)).toBe(false);
    filter.clear();
    expect([filter.size, filter.has(urlKeys(1, 'clone')[0]!), filter.fillRatio()]).toEqual([0, false, 0]);
    expect(copy.size).toBe(51);
  });

  it('reads back what it writes: one array, parts, JSON, in place', () => {
    const filter = CuckooFilter.create(5000, 0.001, { bucketSize: 8, seed: 77 });
    filter.addAll(urlKeys(4000, 'file'));
    const bytes = filter.serialize();
    expect(bytes.length).toBe(24 + 32 + Math.ceil((filter.buckets * 8 * 14) / 8) + 4);
    for (const read of [
      CuckooFilter.deserialize(bytes),
      CuckooFilter.deserialize(filter.serializeParts()),
      CuckooFilter.fromJSON(JSON.parse(JSON.stringify(filter))),
    ]) {
      expect(read.equals(filter)).toBe(true);
      expect([read.capacity, read.fpr, read.size, read.seed, read.maxKicks]).toEqual([
        5000, 0.001, 4000, 77, 1000,
      ]);
      expect(read.serialize()).toEqual(bytes);
    }
    const inPlace = CuckooFilter.deserialize(bytes, { copy: false });
    inPlace.add('added in place');
    expect(bytes.subarray(56, -4)).toEqual(inPlace.serialize().subarray(56, -4));
    expect(() => CuckooFilter.deserialize(bytes)).toThrow(FormatError);
    expect(inPlace.syncBytes()).toBe(bytes);
    expect(CuckooFilter.deserialize(bytes).has('added in place')).toBe(true);
    expect(() => filter.syncBytes()).toThrow(/does not work in place/);
  });

  it('refuses a file whose fingerprint count lies', () => {
    const filter = CuckooFilter.create(100, 0.01);
    filter.addAll(urlKeys(10, 'lies'));
    const bytes = filter.serialize();
    new DataView(bytes.buffer).setUint32(48, 11, true);
    expect(() => CuckooFilter.deserialize(bytes, { verifyChecksum: false })).toThrow(
      /the params say 11 fingerprints, the slots hold 10/,
    );
  });
});

describe('CuckooFilter read in place', () => {
  it('refuses every call once the bytes it reads are detached (a typed error, not a TypeError)', () => {
    const filter = CuckooFilter.create(5_000, 0.01);
    filter.addAll(urlKeys(2_000, 'in-place'));
    const bytes = filter.serialize();
    const inPlace = CuckooFilter.deserialize(bytes, { copy: false });
    expect(inPlace.has(urlKeys(1, 'in-place')[0]!)).toBe(true);
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
    for (const call of [
      () => inPlace.has('x'),
      () => inPlace.add('x'),
      () => inPlace.delete('x'),
      () => inPlace.countOf('x'),
      () => inPlace.hasMany(['x', 'y']),
      () => inPlace.addAll(['x']),
      () => inPlace.deleteAll(['x']),
    ]) {
      expect(call).toThrow(InvalidArgumentError);
      expect(call).toThrow(/were detached/);
    }
  });
});
