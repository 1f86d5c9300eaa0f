import { FormatError, IncompatibleFiltersError, InvalidArgumentError } from '@bloomkit/core';
import { crc32c, hashInto } from '@bloomkit/core/kit';
import { collectionsDuring, depth, upperBoundCount, urlKeys, yieldToRunner } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BinaryFuseFilter, fingerprintBitsFor } from '../src/index.js';

/** The 64-bit hashes `build` takes of keys: h1 the low word, h2 the high (FORMAT §4, §3.8). */
function hashesOf(keys: readonly string[], seed: number): BigUint64Array {
  const out = new BigUint64Array(keys.length);
  const words = new Uint32Array(out.buffer);
  const hash = new Int32Array(4);
  keys.forEach((key, i) => {
    hashInto(key, seed, hash, 'test');
    words[2 * i] = hash[0]!;
    words[2 * i + 1] = hash[1]!;
  });
  return out;
}

/** How many of `keys` the filter answers present, one `has` a key, yielding to the runner every 100,000. */
async function present(filter: BinaryFuseFilter, keys: readonly string[]): Promise<number> {
  let found = 0;
  for (let i = 0; i < keys.length; i++) {
    if (filter.has(keys[i]!)) found++;
    if (i % 100_000 === 99_999) await yieldToRunner();
  }
  return found;
}

describe('BinaryFuseFilter: the promised size and rate at 10^6 keys', () => {
  for (const [bits, maxBitsPerKey, target] of [
    [8, 9.1, 0.0045],
    [16, 18.2, 0.00004],
  ] as const) {
    // Each step yields to the runner after it: on a busy machine a step takes several seconds, and the whole test
    // run without a break held its worker for 33 s at load 11 (vitest fails a run at 60 s without a word from one).
    it(`${bits}-bit fingerprints: ≤ ${maxBitsPerKey} bits a key, every key present, the rate ≤ ${target * 100}% and within its bound`, async () => {
      const keys = urlKeys(1_000_000, 'fuse', bits);
      await yieldToRunner();
      const filter = BinaryFuseFilter.build(keys, { fingerprintBits: bits, seed: 3 });
      await yieldToRunner();
      expect(filter.size).toBe(1_000_000);
      expect(filter.bitsPerKey).toBeLessThanOrEqual(maxBitsPerKey);
      expect(await present(filter, keys)).toBe(keys.length);
      const absent = urlKeys(1_000_000, 'absent', bits);
      await yieldToRunner();
      const falsePositives = await present(filter, absent);
      expect(falsePositives / absent.length).toBeLessThanOrEqual(target);
      expect(falsePositives).toBeLessThanOrEqual(upperBoundCount(filter.expectedFpr(), absent.length));
      expect(filter.expectedFpr()).toBe(2 ** -bits);
    });
  }
});

describe('BinaryFuseFilter laws', () => {
  it('no false negative: any keys, repeats included, any seed, both widths', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 12 })), { maxLength: 400 }),
        fc.nat({ max: 0xffffffff }),
        fc.constantFrom(8 as const, 16 as const),
        (keys, seed, bits) => {
          const filter = BinaryFuseFilter.build([...keys, ...keys.slice(0, 20)], {
            seed,
            fingerprintBits: bits,
          });
          expect(filter.hasMany(keys).every(Boolean)).toBe(true);
        },
      ),
      { numRuns: depth(300) },
    );
  });

  it('build(keys) is fromHashes of their hashes: the same fingerprints and seed; hasHashes answers as has', () => {
    const keys = urlKeys(20_000, 'same', 2);
    const built = BinaryFuseFilter.build(keys, { seed: 99 });
    const hashes = hashesOf(keys, 99);
    const fromHashes = BinaryFuseFilter.fromHashes(hashes);
    expect(built.reference()).toEqual(fromHashes.reference());
    const probe = [...keys.slice(0, 500), ...urlKeys(5_000, 'other', 2)];
    expect(built.hasHashes(hashesOf(probe, 99))).toEqual(built.hasMany(probe));
    expect(fromHashes.hasHashes(hashesOf(probe, 99))).toEqual(built.hasMany(probe));
    expect(() => fromHashes.has('x')).toThrow(
      /built from 64-bit hashes \(fromHashes\); ask it with hasHashes/,
    );
  });

  it('fromKeyHashes of the keys’ hashes with their seed is build of the keys: the same bytes, has answers', () => {
    const keys = urlKeys(5_000, 'key-hashes', 1);
    for (const [seed, fingerprintBits] of [
      [0, 8],
      [77, 16],
    ] as const) {
      const hashes = hashesOf(keys, seed);
      const copy = hashes.slice();
      const fromHashes = BinaryFuseFilter.fromKeyHashes(hashes, { seed, fingerprintBits });
      expect(hashes).toEqual(copy);
      expect(fromHashes.serialize()).toEqual(
        BinaryFuseFilter.build(keys, { seed, fingerprintBits }).serialize(),
      );
      expect(fromHashes.hasMany(keys).every(Boolean)).toBe(true);
    }
    expect(() => BinaryFuseFilter.fromKeyHashes(new BigUint64Array(1), { seed: 'random' as never })).toThrow(
      /not 'random'/,
    );
    expect(() => BinaryFuseFilter.fromKeyHashes(new BigUint64Array(1), { seed: -3 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => BinaryFuseFilter.fromKeyHashes([1n] as never)).toThrow(/must be a BigUint64Array/);
  });

  it('build and fromKeyHashes size for the distinct keys: repeats cost nothing, the bytes those of the distinct set', () => {
    const distinct = urlKeys(60_000, 'repeats');
    // Every key once, then 40,000 of them again, interleaved.
    const withRepeats = [...distinct];
    for (let i = 0; i < 40_000; i++)
      withRepeats.splice(3 * i + 1, 0, distinct[(i * 7_919) % distinct.length]!);
    for (const fingerprintBits of [8, 16] as const) {
      const once = BinaryFuseFilter.build(distinct, { fingerprintBits, seed: 4 });
      const repeated = BinaryFuseFilter.build(withRepeats, { fingerprintBits, seed: 4 });
      expect(Buffer.compare(repeated.serialize(), once.serialize())).toBe(0);
      expect(repeated.size).toBe(60_000);
      expect(repeated.bitsPerKey).toBeCloseTo(once.bitsPerKey, 10);
    }
    const sameKey = BinaryFuseFilter.build(Array.from({ length: 1_000 }, () => 'the same key'));
    expect(Buffer.compare(sameKey.serialize(), BinaryFuseFilter.build(['the same key']).serialize())).toBe(0);
    // fromHashes stays the reference's own handling: sized for every hash given (reference.spec.ts).
    const hashes = new BigUint64Array(2_000).map((_, i) => BigInt(i % 500) * 0x9e3779b97f4a7c15n + 1n);
    expect(BinaryFuseFilter.fromHashes(hashes).reference().arrayLength).toBeGreaterThan(
      BinaryFuseFilter.fromHashes(hashes.slice(0, 500)).reference().arrayLength,
    );
  });

  it('fromHashes leaves the caller’s array as it was, duplicates and all', () => {
    const hashes = new BigUint64Array(5_000);
    for (let i = 0; i < hashes.length; i++) hashes[i] = BigInt((i * 7_919) % 1_000) * 0x9e3779b97f4a7c15n;
    const copy = hashes.slice();
    const filter = BinaryFuseFilter.fromHashes(hashes, { fingerprintBits: 16 });
    expect(hashes).toEqual(copy);
    expect(filter.size).toBe(1_000);
    expect(filter.hasHashes(hashes).every(Boolean)).toBe(true);
  });

  it('empty and one-key sets', () => {
    const empty = BinaryFuseFilter.build([]);
    expect(empty.size).toBe(0);
    expect(empty.reference().arrayLength).toBe(12);
    const one = BinaryFuseFilter.build(['only']);
    expect(one.has('only')).toBe(true);
    expect(BinaryFuseFilter.deserialize(one.serialize()).has('only')).toBe(true);
  });
});

describe('BinaryFuseFilter files', () => {
  it('round trip: the same answers, zero-copy by default, copied on request; JSON too', () => {
    const keys = urlKeys(10_000, 'file');
    for (const bits of [8, 16] as const) {
      const filter = BinaryFuseFilter.build(keys, { fingerprintBits: bits, seed: 5 });
      const bytes = filter.serialize();
      const read = BinaryFuseFilter.deserialize(bytes);
      expect(read.reference()).toEqual(filter.reference());
      expect(read.seed).toBe(5);
      expect(read.reference().fingerprints.buffer).toBe(bytes.buffer);
      const copied = BinaryFuseFilter.deserialize(bytes, { copy: true });
      expect(copied.reference().fingerprints.buffer).not.toBe(bytes.buffer);
      expect(read.hasMany(keys).every(Boolean)).toBe(true);
      expect(BinaryFuseFilter.fromJSON(JSON.stringify(filter)).serialize()).toEqual(bytes);
      // 16-bit fingerprints at an odd offset are copied, and read the same.
      const shifted = new Uint8Array(bytes.length + 1);
      shifted.set(bytes, 1);
      expect(BinaryFuseFilter.deserialize(shifted.subarray(1)).hasMany(keys).every(Boolean)).toBe(true);
    }
  });

  it('refuses a size whose segments the params do not match, and lying lengths, with FormatErrors and no large allocation', () => {
    const bytes = BinaryFuseFilter.build(urlKeys(1_000, 'lie')).serialize();
    const edit = (at: number, value: number, width: 1 | 4) => {
      const copy = bytes.slice();
      const view = new DataView(copy.buffer);
      if (width === 1) view.setUint8(at, value);
      else view.setUint32(at, value, true);
      view.setUint32(copy.length - 4, crc32c(copy.subarray(0, -4)), true);
      return copy;
    };
    const params = 24;
    expect(() => BinaryFuseFilter.deserialize(edit(params + 12, 0xffffffff, 4))).toThrow(FormatError);
    expect(() => BinaryFuseFilter.deserialize(edit(params + 12, 100_000, 4))).toThrow(/segments of/);
    expect(() => BinaryFuseFilter.deserialize(edit(params, 12, 1))).toThrow(
      /fingerprint bits must be 8 or 16/,
    );
    expect(() => BinaryFuseFilter.deserialize(edit(params + 1, 2, 1))).toThrow(/keys must be 0/);
    expect(() => BinaryFuseFilter.deserialize(edit(params + 24, 1_001, 4))).toThrow(/at most the size 1000/);
    expect(() => BinaryFuseFilter.deserialize(bytes.subarray(0, bytes.length - 1))).toThrow(FormatError);
  });
});

describe('BinaryFuseFilter arguments', () => {
  it('typed errors naming the parameter', () => {
    expect(() => BinaryFuseFilter.build(['a'], { fingerprintBits: 12 as 8 })).toThrow(
      new InvalidArgumentError('BinaryFuseFilter.build: fingerprintBits must be 8 or 16, got 12'),
    );
    expect(() => BinaryFuseFilter.build(['a'], { seed: -1 })).toThrow(
      /seed must be an integer in \[0, 2\^32 - 1\]/,
    );
    expect(() => BinaryFuseFilter.build(['a'], { seed: 2 ** 32 })).toThrow(InvalidArgumentError);
    expect(() => BinaryFuseFilter.build([5 as unknown as string])).toThrow(InvalidArgumentError);
    expect(() => BinaryFuseFilter.fromHashes([1n] as unknown as BigUint64Array)).toThrow(
      /must be a BigUint64Array/,
    );
    expect(() => BinaryFuseFilter.build(['a']).add('b')).toThrow(/holds a fixed set/);
  });

  it('the set is fixed: create, addAll and clear refuse with InvalidArgumentError, union and intersect with IncompatibleFiltersError, nothing changed', () => {
    const filter = BinaryFuseFilter.build(['a', 'b', 'c']);
    const before = filter.serialize();
    expect(() => BinaryFuseFilter.create(1000, 0.01)).toThrow(InvalidArgumentError);
    expect(() => filter.addAll(['d'])).toThrow(/addAll: a binary fuse filter holds a fixed set/);
    expect(() => filter.clear()).toThrow(InvalidArgumentError);
    expect(() => filter.union(filter)).toThrow(IncompatibleFiltersError);
    expect(() => filter.intersect(filter)).toThrow(IncompatibleFiltersError);
    expect(filter.serialize()).toEqual(before);
  });

  it('fingerprintBitsFor: the width whose rate is at most fpr, typed errors past 2^-16 and outside (0, 1)', () => {
    expect(fingerprintBitsFor(0.01)).toBe(8);
    expect(fingerprintBitsFor(2 ** -8)).toBe(8);
    expect(fingerprintBitsFor(0.0039)).toBe(16);
    expect(fingerprintBitsFor(2 ** -16)).toBe(16);
    expect(() => fingerprintBitsFor(1e-5)).toThrow(/at least 2\^-16/);
    for (const bad of [0, 1, -0.1, Number.NaN, '0.01' as unknown as number]) {
      expect(() => fingerprintBitsFor(bad)).toThrow(InvalidArgumentError);
    }
  });
});

describe('BinaryFuseFilter in the shared filter API', () => {
  it('bits, hashes, count, capacity, fpr, fill and the estimate state the fixed set; clone and equals compare all of it', () => {
    const keys = urlKeys(10_000, 'shared', 1);
    const filter = BinaryFuseFilter.build([...keys, ...keys.slice(0, 100)], { seed: 9 });
    const { arrayLength, segmentLength } = filter.reference();
    expect(filter.bits).toBe(arrayLength * 8);
    expect(filter.hashes).toBe(3);
    expect([filter.count, filter.capacity, filter.estimatedCount()]).toEqual([10_000, 10_000, 10_000]);
    expect(filter.fpr).toBe(2 ** -8);
    expect(filter.fillRatio()).toBeCloseTo(10_000 / arrayLength, 12);
    const copy = filter.clone();
    expect(copy.equals(filter)).toBe(true);
    expect(copy.reference().fingerprints).not.toBe(filter.reference().fingerprints);
    expect(copy.serialize()).toEqual(filter.serialize());
    expect(filter.equals(BinaryFuseFilter.build(keys, { seed: 10 }))).toBe(false);
    expect(filter.equals(BinaryFuseFilter.build(keys, { seed: 9, fingerprintBits: 16 }))).toBe(false);
    const facts = Object.fromEntries(filter.facts().map((fact) => [fact.key, fact.value]));
    expect(facts).toEqual({
      fingerprintBits: 8,
      segmentLength,
      segments: arrayLength / segmentLength,
      slots: arrayLength,
      keys: 'murmur3',
    });
    const hashed = BinaryFuseFilter.fromHashes(new BigUint64Array([1n, 2n]));
    expect(hashed.facts().find((fact) => fact.key === 'keys')?.value).toBe('hashes');
  });
});

describe('BinaryFuseFilter lookups allocate nothing', () => {
  it('10^6 has() of text keys run with no garbage collection at all', async () => {
    const keys = urlKeys(100_000, 'gc');
    const filter = BinaryFuseFilter.build(keys);
    const probes = urlKeys(1_000, 'probe');
    for (let i = 0; i < 20_000; i++) filter.has(probes[i % 1_000]!); // warm up: compiled before the count
    let found = 0;
    const collections = await collectionsDuring(() => {
      for (let i = 0; i < 1_000_000; i++) if (filter.has(probes[i % 1_000]!)) found++;
    });
    expect(found).toBeLessThan(1_000_000);
    expect(collections).toEqual([]);
  });
});
