import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitArray } from '../src/bit-array.js';
import { IncompatibleFiltersError, InvalidArgumentError } from '../src/errors.js';
import { setKernelBackend } from '../src/kernel/backend.js';
import type { KindRecord } from '../src/kinds.js';
import { murmur3x86_128Into } from '../src/murmur3.js';
import { derivePositions } from '../src/positions.js';
import {
  TOY_BLOCKED,
  TOY_PARTITIONED,
  TOY_STANDARD,
  ToyCountingFilter,
  toyBitFilterClass,
} from './support/toy-filter.js';

const Standard = toyBitFilterClass(TOY_STANDARD);
const Partitioned = toyBitFilterClass(TOY_PARTITIONED);
const Blocked = toyBitFilterClass(TOY_BLOCKED);

/** The slots a key's positions.ts derivation names: what the engine's inline loops must mark. */
function expectedSlots(kind: KindRecord, key: string, bits: number, hashes: number, seed: number): number[] {
  const hash = new Uint32Array(4);
  murmur3x86_128Into(key, seed, hash);
  const out = new Float64Array(hashes);
  derivePositions(hash, kind.layout.geometry(bits, hashes), hashes, out);
  return [...new Set(out)].sort((a, b) => a - b);
}

function setSlots(bytes: Uint8Array): number[] {
  const slots: number[] = [];
  for (let i = 0; i < bytes.length * 8; i++) if (bytes[i >> 3]! & (1 << (i & 7))) slots.push(i);
  return slots;
}

describe('BloomEngine', () => {
  it('marks exactly the slots positions.ts derives, for every layout and both stores', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (key, bits, hashes, seed) => {
          const standard = new Standard({ bits, hashes, seed });
          expect(standard.add(key)).toBe(true);
          const bytes = standard.serialize().subarray(64, -4);
          expect(setSlots(bytes)).toEqual(expectedSlots(TOY_STANDARD, key, bits, hashes, seed));

          const partitioned = new Partitioned({ bits: bits * hashes, hashes, seed });
          partitioned.add(key);
          const pBytes = partitioned.serialize().subarray(64, -4);
          expect(setSlots(pBytes)).toEqual(expectedSlots(TOY_PARTITIONED, key, bits * hashes, hashes, seed));

          const blocked = new Blocked({ bits: bits * 512, hashes, seed });
          blocked.add(key);
          const bBytes = blocked.serialize().subarray(64, -4);
          expect(setSlots(bBytes)).toEqual(expectedSlots(TOY_BLOCKED, key, bits * 512, hashes, seed));

          const counting = new ToyCountingFilter({ bits, hashes, seed, counterBits: 8 });
          counting.add(key);
          const counters = counting.serialize().subarray(64, -4);
          const nonZero = [...counters.keys()].filter((i) => counters[i] !== 0);
          expect(nonZero).toEqual(expectedSlots(TOY_STANDARD, key, bits, hashes, seed));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(['auto', 'javascript'] as const)(
    'addAll and hasMany (batches on backend %s) give the answers and bytes of add and has key by key',
    (backend) => {
      const before = setKernelBackend(backend);
      try {
        const key = fc.oneof(
          fc.string({ maxLength: 50 }),
          fc.string({ unit: 'binary', maxLength: 20 }),
          fc.uint8Array({ maxLength: 50 }),
        );
        fc.assert(
          fc.property(
            fc.array(key, { maxLength: 80 }),
            fc.array(key, { maxLength: 80 }),
            fc.constantFrom(Standard, Partitioned, Blocked, ToyCountingFilter),
            fc.integer({ min: 512, max: 4_096 }),
            fc.nat(0xffffffff),
            (added, probed, Kind, bits, seed) => {
              const batched = new Kind({ bits, hashes: 5, seed });
              const single = new Kind({ bits, hashes: 5, seed });
              const fresh = added.filter((k) => single.add(k)).length;
              expect(batched.addAll(added)).toBe(fresh);
              expect(batched.serialize()).toEqual(single.serialize());
              const lookups = [...probed, ...added];
              expect(batched.hasMany(lookups)).toEqual(lookups.map((k) => single.has(k)));
            },
          ),
          { numRuns: 150 },
        );
      } finally {
        setKernelBackend(before);
      }
    },
  );

  it('addHashes and hasHashes refuse bad arguments with a typed error, changing nothing', () => {
    const filter = new Blocked({ bits: 2_048, hashes: 5 });
    expect(() => filter.addHashes(new Int32Array(8), 3)).toThrow(
      /Toy.addHashes: count must be an integer in \[0, 2\], got number 3/,
    );
    expect(() => filter.addHashes(new Int32Array(8), 1.5)).toThrow(InvalidArgumentError);
    expect(() => filter.addHashes(new Uint32Array(8) as never, 1)).toThrow(/hashes must be an Int32Array/);
    expect(() => filter.addHashes(new Int32Array(8), 2, new Uint8Array(1))).toThrow(
      /answers must be a Uint8Array of at least count \(2\) bytes, got Uint8Array of 1/,
    );
    expect(() => filter.hasHashes(new Int32Array(8), 2, undefined as never)).toThrow(InvalidArgumentError);
    expect(filter.count).toBe(0);
    expect(filter.fillRatio()).toBe(0);
  });

  it('add is test-and-add: true for a new key, false when every slot was set; count follows', () => {
    const filter = new Standard({ bits: 1000, hashes: 4 });
    expect(filter.add('a')).toBe(true);
    expect(filter.add('a')).toBe(false);
    expect(filter.add(new TextEncoder().encode('a'))).toBe(false);
    expect(filter.count).toBe(1);
    expect(filter.has('a')).toBe(true);
  });

  it('count saturates at 2^53 − 1, so a serialized filter stays readable', () => {
    const filter = new Standard({ bits: 100, hashes: 2 }, { count: Number.MAX_SAFE_INTEGER });
    filter.add('new');
    expect(filter.count).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('addAll is atomic: a bad key, a throwing iterator or a getter leaves the filter unchanged', () => {
    const filter = new Standard({ bits: 1000, hashes: 3 });
    const before = filter.serialize();
    expect(() => filter.addAll(['a', 'b', 5 as never])).toThrow(/keys\[2\] must be a string or a Uint8Array/);
    function* throwing() {
      yield 'a';
      yield 'b';
      throw new Error('source failed');
    }
    expect(() => filter.addAll(throwing())).toThrow('source failed');
    const tricky = ['a', 'b'];
    let reads = 0;
    Object.defineProperty(tricky, 2, {
      get: () => (reads++ === 0 ? 'c' : 42),
      enumerable: true,
      configurable: true,
    });
    expect(filter.addAll(tricky)).toBe(3);
    expect(reads).toBe(1);
    filter.clear();
    const withIterator = ['x', 'y'];
    (withIterator as unknown as { [Symbol.iterator]: () => Iterator<unknown> })[Symbol.iterator] =
      function* () {
        yield 'x';
        yield null;
      };
    expect(() => filter.addAll(withIterator)).not.toThrow();
    expect(filter.serialize()).not.toEqual(before);
    filter.clear();
    expect(filter.serialize()).toEqual(before);
  });

  it('refuses a string where keys are expected (it would add one-letter keys)', () => {
    const filter = new Standard({ bits: 1000, hashes: 3 });
    expect(() => filter.addAll('abc' as never)).toThrow(/got a string \(pass \[key\] for one key\)/);
    expect(() => filter.hasMany('abc' as never)).toThrow(InvalidArgumentError);
    expect(() => filter.addAll(null as never)).toThrow(/must be an iterable/);
    expect(filter.count).toBe(0);
  });

  it('checks the state it is given: null, negative counts, capacity without fpr', () => {
    expect(() => new Standard({ bits: 10, hashes: 1 }, null as never)).toThrow(
      /state must be an object, got null/,
    );
    expect(() => new Standard({ bits: 10, hashes: 1 }, { count: -5 })).toThrow(
      /state.count must be an integer/,
    );
    expect(() => new Standard({ bits: 10, hashes: 1 }, { capacity: 5 })).toThrow(/given together/);
    expect(() => new Standard({ bits: 10, hashes: 1 }, { capacity: 5, fpr: -0 })).toThrow(/state.fpr/);
    expect(() => new Standard({ bits: 10, hashes: 1 }, { storage: new BitArray(11) })).toThrow(
      /exactly 10 slots/,
    );
    expect(() => new Standard(null as never)).toThrow(InvalidArgumentError);
  });

  it('rounds m up to a multiple of k for the partitioned layout', () => {
    expect(new Partitioned({ bits: 100, hashes: 7 }).bits).toBe(105);
    expect(new Standard({ bits: 100, hashes: 7 }).bits).toBe(100);
  });

  it('combines only filters of the same kind, shape and seed, naming the mismatch', () => {
    const a = new Standard({ bits: 100, hashes: 3 });
    expect(() => a.union(new Standard({ bits: 101, hashes: 3 }))).toThrow(/bits 100 vs 101/);
    expect(() => a.union(new Standard({ bits: 100, hashes: 3, seed: 1 }))).toThrow(/seed 0 vs 1/);
    expect(() => a.intersect(new Partitioned({ bits: 99, hashes: 3 }) as never)).toThrow(
      IncompatibleFiltersError,
    );
  });

  it('union and clone keep the class; union counts by the fill estimate', () => {
    const a = new Standard({ bits: 10_000, hashes: 4 });
    const b = new Standard({ bits: 10_000, hashes: 4 });
    for (let i = 0; i < 200; i++) a.add(`a${i}`);
    for (let i = 0; i < 200; i++) b.add(`b${i}`);
    const u = a.union(b);
    expect(u).toBeInstanceOf(Standard);
    expect(Math.abs(u.count - 400)).toBeLessThan(20);
    const c = a.clone();
    expect(c).toBeInstanceOf(Standard);
    expect(c.count).toBe(a.count);
    expect(c.equals(a)).toBe(true);
  });
});
