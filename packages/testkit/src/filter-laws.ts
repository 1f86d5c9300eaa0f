import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binaryKeys, urlKeyChunks, urlKeys } from './keys.js';
import { concat, splitAt } from './parts.js';
import { countHits, type FilledShape, fprLowerBoundCount, fprUpperBoundCount } from './stats.js';

type Key = string | Uint8Array;

/** The part of the shared filter API the laws exercise. */
export interface LawfulFilter<Self> {
  readonly bits: number;
  readonly hashes: number;
  readonly seed: number;
  readonly count: number;
  add(key: Key): boolean;
  has(key: Key): boolean;
  addAll(keys: Iterable<Key>): number;
  hasMany(keys: readonly Key[]): boolean[];
  fillRatio(): number;
  union(other: Self): Self;
  intersect(other: Self): Self;
  clone(): Self;
  clear(): void;
  equals(other: Self): boolean;
  serialize(): Uint8Array;
  serializeParts(): Uint8Array[];
  syncBytes(): Uint8Array;
  toJSON(): { format: string; version: number; kind: string; base64: string };
}

/** A filter class as the laws see it. */
export interface FilterClass<F extends LawfulFilter<F>> {
  readonly name: string;
  readonly layout: 'standard' | 'partitioned' | 'blocked';
  fromShape(shape: { bits: number; hashes: number; seed: number }): F;
  create(capacity: number, fpr: number): F;
  /** `Class.from(keys, fpr)`: a filter holding the keys, sized for as many (at least 1). */
  from(keys: Iterable<Key>, fpr: number): F;
  deserialize(bytes: Uint8Array | readonly Uint8Array[], options?: { copy?: boolean }): F;
  fromJSON(json: unknown): F;
  predictedFpr(filter: F, n: number): number;
}

const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.uint8Array({ maxLength: 24 }));
const keys = fc.array(key, { maxLength: 200 });
const shapeArb = fc.record({
  bits: fc.integer({ min: 1, max: 5_000 }),
  hashes: fc.integer({ min: 1, max: 12 }),
  seed: fc.integer({ min: 0, max: 0xffffffff }),
});

const cutsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

/** fast-check laws every filter kind obeys: no false negatives, round trip, union = insert-all, intersection. */
export function describeFilterLaws<F extends LawfulFilter<F>>(Filter: FilterClass<F>): void {
  describe(`${Filter.name} laws`, () => {
    membershipLaws(Filter);
    fileLaws(Filter);
    algebraLaws(Filter);
  });
}

/** Building, adding and asking: `from` is create then addAll, and no key added is ever answered absent. */
function membershipLaws<F extends LawfulFilter<F>>(Filter: FilterClass<F>): void {
  it('from(keys, fpr) is create(max(1, keys), fpr) then addAll(keys), byte for byte; a bad key builds nothing', () => {
    fc.assert(
      fc.property(keys, fc.constantFrom(0.1, 0.01, 0.001), (added, fpr) => {
        const built = Filter.from(added, fpr);
        const expected = Filter.create(Math.max(1, added.length), fpr);
        expected.addAll(added);
        expect(built.serialize()).toEqual(expected.serialize());
        for (const k of added) expect(built.has(k)).toBe(true);
      }),
      { numRuns: 100 },
    );
    // Read once, from any iterable.
    const fromSet = Filter.from(new Set(['a', 'b']), 0.01);
    expect([fromSet.has('a'), fromSet.has('b')]).toEqual([true, true]);
    expect(() => Filter.from(['a', 7 as unknown as string], 0.01)).toThrow(
      /\.from: .*key.* must be a string or a Uint8Array/,
    );
  });

  it('has no false negatives (has and hasMany)', () => {
    fc.assert(
      fc.property(shapeArb, keys, (shape, added) => {
        const filter = Filter.fromShape(shape);
        filter.addAll(added);
        for (const k of added) expect(filter.has(k)).toBe(true);
        expect(filter.hasMany(added).every(Boolean)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
}

/** The filter's bytes and JSON: round trips, parts, and in-place files kept valid. */
function fileLaws<F extends LawfulFilter<F>>(Filter: FilterClass<F>): void {
  it('deserialize(serialize(f)) equals f and answers identically, copied or in place', () => {
    fc.assert(
      fc.property(shapeArb, keys, keys, fc.boolean(), (shape, added, probes, copy) => {
        const filter = Filter.fromShape(shape);
        filter.addAll(added);
        const restored = Filter.deserialize(filter.serialize(), { copy });
        expect(restored.equals(filter)).toBe(true);
        expect([restored.bits, restored.hashes, restored.seed, restored.count]).toEqual([
          filter.bits,
          filter.hashes,
          filter.seed,
          filter.count,
        ]);
        for (const k of [...added, ...probes]) expect(restored.has(k)).toBe(filter.has(k));
        expect(restored.serialize()).toEqual(filter.serialize());
      }),
      { numRuns: 200 },
    );
  });

  it('serializeParts() is serialize() in pieces, and deserialize reads any split of the bytes', () => {
    fc.assert(
      fc.property(shapeArb, keys, cutsArb, fc.boolean(), (shape, added, cuts, copy) => {
        const filter = Filter.fromShape(shape);
        filter.addAll(added);
        const bytes = filter.serialize();
        expect(concat(filter.serializeParts())).toEqual(bytes);
        const restored = Filter.deserialize(splitAt(bytes, cuts), { copy });
        expect(restored.equals(filter)).toBe(true);
        expect(restored.count).toBe(filter.count);
        expect(restored.serialize()).toEqual(bytes);
      }),
      { numRuns: 200 },
    );
  });

  it("in place: adds change the caller's bytes, and syncBytes() makes them a valid file of the filter again", () => {
    fc.assert(
      fc.property(shapeArb, keys, keys, (shape, first, then) => {
        const original = Filter.fromShape(shape);
        original.addAll(first);
        const bytes = original.serialize().slice();
        const inPlace = Filter.deserialize(bytes, { copy: false });
        inPlace.addAll(then);
        const synced = inPlace.syncBytes();
        expect(synced.buffer).toBe(bytes.buffer);
        expect(synced).toEqual(bytes);
        expect(bytes).toEqual(inPlace.serialize());
        const reloaded = Filter.deserialize(bytes);
        expect(reloaded.equals(inPlace)).toBe(true);
        expect(reloaded.count).toBe(inPlace.count);
        expect(() => original.syncBytes()).toThrow(/does not work in place/);
      }),
      { numRuns: 100 },
    );
  });

  it('JSON.stringify and fromJSON round-trip; the JSON is the file in base64', () => {
    fc.assert(
      fc.property(shapeArb, keys, (shape, added) => {
        const filter = Filter.fromShape(shape);
        filter.addAll(added);
        const text = JSON.stringify(filter);
        const json = JSON.parse(text);
        expect(json.format).toBe('bloomkit');
        expect(json.version).toBe(1);
        expect(Buffer.from(json.base64, 'base64')).toEqual(Buffer.from(filter.serialize()));
        expect(text.length).toBeLessThan(filter.serialize().length * 1.4 + 100);
        for (const restored of [Filter.fromJSON(text), Filter.fromJSON(json)]) {
          expect(restored.equals(filter)).toBe(true);
          expect(restored.count).toBe(filter.count);
        }
        expect(() => Filter.fromJSON({ ...json, kind: 'nope' })).toThrow(/expected/);
        expect(() => Filter.fromJSON({ ...json, base64: `${json.base64.slice(1)}!` })).toThrow(/base64/);
      }),
      { numRuns: 100 },
    );
  });
}

/** Union, intersection, clone and clear. */
function algebraLaws<F extends LawfulFilter<F>>(Filter: FilterClass<F>): void {
  it('union(a, b) equals a filter built from both key sets', () => {
    fc.assert(
      fc.property(shapeArb, keys, keys, (shape, a, b) => {
        const left = Filter.fromShape(shape);
        left.addAll(a);
        const right = Filter.fromShape(shape);
        right.addAll(b);
        const both = Filter.fromShape(shape);
        both.addAll([...a, ...b]);
        expect(left.union(right).equals(both)).toBe(true);
        expect(right.union(left).equals(both)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('the intersection holds every key that is in both sources', () => {
    fc.assert(
      fc.property(shapeArb, keys, keys, keys, (shape, common, onlyA, onlyB) => {
        const a = Filter.fromShape(shape);
        a.addAll([...common, ...onlyA]);
        const b = Filter.fromShape(shape);
        b.addAll([...common, ...onlyB]);
        const intersection = a.intersect(b);
        for (const k of common) expect(intersection.has(k)).toBe(true);
        expect(intersection.fillRatio()).toBeLessThanOrEqual(Math.min(a.fillRatio(), b.fillRatio()));
      }),
      { numRuns: 200 },
    );
  });

  it('union and intersect leave their operands unchanged; clone is independent; clear empties', () => {
    const a = Filter.fromShape({ bits: 1000, hashes: 4, seed: 0 });
    a.addAll(['x', 'y']);
    const b = Filter.fromShape({ bits: 1000, hashes: 4, seed: 0 });
    b.add('z');
    const snapshot = a.serialize();
    a.union(b);
    a.intersect(b);
    expect(a.serialize()).toEqual(snapshot);
    const copy = a.clone();
    copy.add('w');
    expect(a.has('w')).toBe(false);
    expect(copy.count).toBe(3);
    a.clear();
    expect([a.has('x'), a.count, a.fillRatio()]).toEqual([false, 0, 0]);
  });
}

/** Which cases {@link describeFalsePositiveRate} measures. */
export interface FprGrid {
  readonly capacities: readonly number[];
  readonly fprs: readonly number[];
  /** 16-byte keys are measured up to this capacity (string keys at every capacity). */
  readonly binaryUpTo: number;
}

const DEFAULT_GRID: FprGrid = {
  capacities: [1_000, 10_000, 100_000],
  fprs: [0.1, 0.01, 0.001],
  binaryUpTo: 100_000,
};

/** Absent probe keys, built once per test file. */
const PROBES = 1_000_000;

/**
 * Measured false-positive rate, for p in {0.1, 0.01, 0.001} and capacity in {10^3, 10^4, 10^5} (10^3: small
 * filters, where a weak position scheme shows first), string and 16-byte keys:
 * filled to capacity and probed with 10^6 keys never added, the count of false positives must not exceed the 99.9%
 * upper confidence bound around the predicted rate ({@link fprUpperBoundCount}: probe randomness and the
 * randomness of this filter's bits), and the predicted rate must be at most the target.
 */
export function describeFalsePositiveRate<F extends LawfulFilter<F>>(
  Filter: FilterClass<F>,
  grid: FprGrid = DEFAULT_GRID,
): void {
  describe(`${Filter.name} false-positive rate`, () => {
    let absentUrls: string[] | undefined;
    let absentBinary: Uint8Array[] | undefined;
    for (const capacity of grid.capacities) {
      for (const fpr of grid.fprs) {
        for (const keyType of capacity <= grid.binaryUpTo
          ? (['string', 'binary'] as const)
          : (['string'] as const)) {
          it(`n = ${capacity}, p = ${fpr}, ${keyType} keys`, async () => {
            const filter = Filter.create(capacity, fpr);
            const predicted = Filter.predictedFpr(filter, capacity);
            expect(predicted).toBeLessThanOrEqual(fpr);
            if (keyType === 'string') {
              // In chunks, yielding between them: a test that blocks its worker for a minute (10^7 keys) makes
              // the runner's own messages time out.
              for (const chunk of urlKeyChunks(capacity, 'present', capacity, 500_000)) {
                filter.addAll(chunk);
                await new Promise((resolve) => setImmediate(resolve));
              }
            } else filter.addAll(binaryKeys(capacity, 0xaa, capacity));
            absentUrls ??= urlKeys(PROBES, 'absent', 99);
            absentBinary ??= binaryKeys(PROBES, 0xbb, 99);
            const absent: readonly Key[] = keyType === 'string' ? absentUrls : absentBinary;
            let hits = 0;
            for (let at = 0; at < absent.length; at += 250_000) {
              hits += countHits<Key>(filter, absent.slice(at, at + 250_000));
              await new Promise((resolve) => setImmediate(resolve));
            }
            const shape: FilledShape = {
              layout: Filter.layout,
              bits: filter.bits,
              hashes: filter.hashes,
              n: capacity,
            };
            expect(hits).toBeLessThanOrEqual(fprUpperBoundCount([shape], PROBES));
            // A floor, so that a broken measurement (nothing ever found) cannot pass: the 99.9% lower bound. (For
            // a small blocked filter at 10^-4 the filter's own variance puts it below 0; larger cases still bite.)
            expect(hits).toBeGreaterThanOrEqual(fprLowerBoundCount([shape], PROBES));
          });
        }
      }
    }
  });
}
