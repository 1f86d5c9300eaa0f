import { BlockedBloomFilter } from '@bloomkit/blocked';
import { BloomError, FormatError, InvalidArgumentError } from '@bloomkit/core';
import { hashInto } from '@bloomkit/core/kit';
import { CountingBloomFilter } from '@bloomkit/counting';
import type { BinaryFuseFilter } from '@bloomkit/fuse';
import { collectionsDuring, upperBoundCount, urlKeys } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFilterBlock, deserializeAny, type FilterBlockKind, openFilterBlock } from '../src/index.js';

const KINDS: readonly FilterBlockKind[] = ['blocked', 'standard', 'fuse'];

function hashesOf(keys: readonly string[], seed: number): Int32Array {
  const out = new Int32Array(4 * keys.length);
  keys.forEach((key, i) => {
    hashInto(key, seed, out.subarray(4 * i, 4 * i + 4), 'test');
  });
  return out;
}

describe('filter blocks: one self-describing file per table file, of the kind a level picks', () => {
  const keys = urlKeys(50_000, 'sst', 1);
  const absent = urlKeys(200_000, 'not-in-sst', 1);

  for (const kind of KINDS) {
    it(`${kind}: every key present, the rate within its bound, keys or their hashes build the same bytes`, () => {
      const block = buildFilterBlock(keys, { kind, fpr: 0.01, seed: 11 });
      expect(Buffer.compare(buildFilterBlock(hashesOf(keys, 11), { kind, fpr: 0.01, seed: 11 }), block)).toBe(
        0,
      );
      const reader = openFilterBlock(block);
      expect(reader).toMatchObject({ kind, seed: 11, byteLength: block.length });
      // A fuse block knows its distinct keys; a Bloom block counts the adds that changed it (a false positive does not).
      if (kind === 'fuse') expect(reader.keys).toBe(50_000);
      else expect(reader.keys).toBeGreaterThan(49_000);
      expect(reader.keys).toBeLessThanOrEqual(50_000);
      expect(deserializeAny(block).Class.kind.name).toBe(kind);
      const hash = new Int32Array(4);
      let missing = 0;
      for (const key of keys) {
        hashInto(key, 11, hash, 'test');
        if (!reader.mayContain(key) || !reader.mayContainHash(hash)) missing++;
      }
      expect(missing).toBe(0);
      let falsePositives = 0;
      for (const key of absent) if (reader.mayContain(key)) falsePositives++;
      // A copy answers the same, and goes on answering after the caller's bytes change.
      const source = block.slice();
      const copied = openFilterBlock(source, { copy: true });
      source.fill(0);
      expect(keys.every((key) => copied.mayContain(key))).toBe(true);
      let copiedPositives = 0;
      for (const key of absent) if (copied.mayContain(key)) copiedPositives++;
      expect(copiedPositives).toBe(falsePositives);
      const rate = kind === 'fuse' ? 2 ** -8 : 0.01;
      expect(falsePositives).toBeLessThanOrEqual(upperBoundCount(rate, absent.length));
    });
  }

  it('bitsPerKey sizes as RocksDB does: m = n × bits, k = round(bits × ln 2); fuse takes 16-bit fingerprints from 18 bits', () => {
    const standard = deserializeAny(buildFilterBlock(keys, { kind: 'standard', bitsPerKey: 10 })).filter;
    expect([standard.bits, standard.hashes]).toEqual([500_000, 7]);
    const blocked = deserializeAny(buildFilterBlock(keys, { kind: 'blocked', bitsPerKey: 10 })).filter;
    expect(blocked).toBeInstanceOf(BlockedBloomFilter);
    expect(blocked.bits).toBeGreaterThanOrEqual(500_000);
    const fuse8 = deserializeAny(buildFilterBlock(keys, { kind: 'fuse', bitsPerKey: 10 })).filter;
    const fuse16 = deserializeAny(buildFilterBlock(keys, { kind: 'fuse', bitsPerKey: 18 })).filter;
    expect([
      (fuse8 as BinaryFuseFilter).fingerprintBits,
      (fuse16 as BinaryFuseFilter).fingerprintBits,
    ]).toEqual([8, 16]);
    expect(deserializeAny(buildFilterBlock(keys, { kind: 'fuse', fpr: 1e-4 })).filter.hashes).toBe(3);
    // An empty table file still has a block, which holds nothing.
    for (const kind of KINDS) {
      const empty = openFilterBlock(buildFilterBlock([], { kind }));
      expect([empty.keys, empty.mayContain('anything')]).toEqual([0, false]);
    }
  });

  it('no false negative: any keys, repeats included, any kind and seed (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 10 })), { maxLength: 200 }),
        fc.constantFrom(...KINDS),
        fc.nat({ max: 0xffffffff }),
        (some, kind, seed) => {
          const reader = openFilterBlock(buildFilterBlock([...some, ...some.slice(0, 5)], { kind, seed }));
          expect(some.every((key) => reader.mayContain(key))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('bad options are typed errors naming them; a file of another kind, or corrupt bytes, a FormatError', () => {
    expect(() => buildFilterBlock(keys, { bitsPerKey: 10, fpr: 0.01 })).toThrow(
      /bitsPerKey or fpr, not both/,
    );
    expect(() => buildFilterBlock(keys, { kind: 'cuckoo' as FilterBlockKind })).toThrow(
      /kind must be blocked, standard or fuse/,
    );
    expect(() => buildFilterBlock(keys, { bitsPerKey: 0.5 })).toThrow(
      /bitsPerKey must be a number in \[1, 64\]/,
    );
    expect(() => buildFilterBlock(keys, { kind: 'fuse', fpr: 1e-6 })).toThrow(InvalidArgumentError);
    expect(() => buildFilterBlock(keys, { fpr: 2 })).toThrow(InvalidArgumentError);
    expect(() => buildFilterBlock(new Int32Array(5))).toThrow(/4 words \(h1..h4\) a key, got 5/);
    expect(() => buildFilterBlock(keys, { seed: -1 })).toThrow(/seed must be an integer/);
    const counting = CountingBloomFilter.create(100, 0.01).serialize();
    expect(() => openFilterBlock(counting)).toThrow(FormatError);
    expect(() => openFilterBlock(counting)).toThrow(/blocked, standard or fuse file, this one is counting/);
    const block = buildFilterBlock(keys.slice(0, 1000), { kind: 'fuse' });
    for (let i = 0; i < 200; i++) {
      const bad = block.slice();
      const at = (i * 7919) % bad.length;
      bad[at] = bad[at]! ^ (1 << (i % 8));
      expect(() => openFilterBlock(bad)).toThrow(BloomError);
    }
    expect(() => openFilterBlock(block.subarray(0, 20))).toThrow(FormatError);
    expect(() => openFilterBlock(block, { copy: 1 as unknown as boolean })).toThrow(
      /options.copy must be a boolean/,
    );
  });
});

describe('a filter block reader allocates nothing per query', () => {
  // In place, and (300,000 keys) a copy: a fuse block's copy lies in WebAssembly memory, its lookups on fuse.wat.
  for (const [kind, copy] of [...KINDS.map((kind) => [kind, false] as const), ['fuse', true] as const]) {
    it(`${kind}${copy ? ' (a copy)' : ''}: 10^6 mayContain and 10^6 mayContainHash run with no garbage collection`, async () => {
      const block = buildFilterBlock(urlKeys(copy ? 300_000 : 100_000, 'gc-block', 1), { kind });
      const reader = openFilterBlock(block, { copy });
      const probes = urlKeys(1_000, 'gc-probe', 1);
      const hash = new Int32Array(4);
      for (let i = 0; i < 20_000; i++) {
        reader.mayContain(probes[i % 1_000]!);
        hashInto(probes[i % 1_000]!, reader.seed, hash, 'test');
        reader.mayContainHash(hash);
      }
      let found = 0;
      const collections = await collectionsDuring(() => {
        for (let i = 0; i < 1_000_000; i++) if (reader.mayContain(probes[i % 1_000]!)) found++;
        for (let i = 0; i < 1_000_000; i++) {
          hashInto(probes[i % 1_000]!, reader.seed, hash, 'test');
          if (reader.mayContainHash(hash)) found++;
        }
      });
      expect(found).toBeLessThan(2_000_000);
      expect(collections).toEqual([]);
    });
  }
});

describe('filter blocks read in place whose bytes are detached', () => {
  it.each(['blocked', 'standard', 'fuse'] as const)(
    '%s: a lookup refuses with an InvalidArgumentError, never answers a key of the set absent',
    (kind) => {
      const keys = urlKeys(2_000, `detached-${kind}`);
      const bytes = buildFilterBlock(keys, { kind });
      const reader = openFilterBlock(bytes);
      expect(keys.every((key) => reader.mayContain(key))).toBe(true);
      structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
      expect(bytes.byteLength).toBe(0);
      for (const key of [keys[0]!, 'never added']) {
        expect(() => reader.mayContain(key)).toThrow(InvalidArgumentError);
        expect(() => reader.mayContain(key)).toThrow(/were detached/);
      }
      const hash = new Int32Array(4);
      hashInto(keys[1]!, reader.seed, hash, 'test');
      expect(() => reader.mayContainHash(hash)).toThrow(/were detached/);
    },
  );
});
