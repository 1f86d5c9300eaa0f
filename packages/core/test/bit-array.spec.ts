import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitArray, popcount32 } from '../src/bit-array.js';
import { InvalidArgumentError } from '../src/errors.js';

/** A model: the set of indexes that are 1. */
function fromIndexes(size: number, indexes: readonly number[], pageBytes?: number): BitArray {
  const bits = new BitArray(size, pageBytes === undefined ? {} : { pageBytes });
  for (const i of indexes) bits.mark(i);
  return bits;
}

const sizeAndIndexes = fc
  .integer({ min: 1, max: 700 })
  .chain((size) =>
    fc.tuple(fc.constant(size), fc.array(fc.integer({ min: 0, max: size - 1 }), { maxLength: 300 })),
  );
const pageBytes = fc.constantFrom(8, 16, 64, 2 ** 29);

describe('BitArray', () => {
  it('lays bit i out as bit (i mod 8) of byte ⌊i/8⌋, least significant first', () => {
    const bits = fromIndexes(20, [0, 9, 15, 19]);
    const bytes = new Uint8Array(bits.byteLength);
    bits.copyTo(bytes, 0);
    expect(Array.from(bytes)).toEqual([0b0000_0001, 0b1000_0010, 0b0000_1000]);
  });

  it('agrees with a set model across page boundaries, for any page size', () => {
    fc.assert(
      fc.property(sizeAndIndexes, pageBytes, ([size, indexes], page) => {
        const bits = new BitArray(size, { pageBytes: page });
        const model = new Set<number>();
        for (const i of indexes) {
          expect(bits.mark(i) !== 0).toBe(!model.has(i));
          model.add(i);
        }
        for (let i = 0; i < size; i++) expect(bits.get(i)).toBe(model.has(i));
        expect(bits.popcount()).toBe(model.size);
        expect(bits.hasPaddingBits()).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('splits into pages of exactly pageBytes, the last one shorter', () => {
    const bits = new BitArray(8 * 20 + 3, { pageBytes: 8 });
    expect(bits.pages.map((p) => p.length)).toEqual([8, 8, 5]);
    // The first and last bit of each page boundary.
    for (const i of [63, 64, 127, 128, 163]) expect(bits.mark(i)).not.toBe(0);
    expect(bits.pages[0]![7]).toBe(0x80);
    expect(bits.pages[1]![0]).toBe(0x01);
    expect(bits.pages[1]![7]).toBe(0x80);
    expect(bits.pages[2]![0]).toBe(0x01);
    expect(bits.pages[2]![4]).toBe(0x08);
  });

  it('reads the same bits whatever the page size, and equals() compares across page sizes', () => {
    fc.assert(
      fc.property(sizeAndIndexes, pageBytes, pageBytes, ([size, indexes], a, b) => {
        const x = fromIndexes(size, indexes, a);
        const y = fromIndexes(size, indexes, b);
        expect(x.equals(y)).toBe(true);
        const bytesX = new Uint8Array(x.byteLength);
        const bytesY = new Uint8Array(y.byteLength);
        x.copyTo(bytesX, 0);
        y.copyTo(bytesY, 0);
        expect(bytesX).toEqual(bytesY);
      }),
      { numRuns: 200 },
    );
  });

  it('or/and equal set union/intersection, across page sizes', () => {
    const twoSets = fc
      .integer({ min: 1, max: 500 })
      .chain((size) =>
        fc.tuple(
          fc.constant(size),
          fc.array(fc.integer({ min: 0, max: size - 1 })),
          fc.array(fc.integer({ min: 0, max: size - 1 })),
        ),
      );
    fc.assert(
      fc.property(twoSets, pageBytes, pageBytes, ([size, a, b], pa, pb) => {
        const union = fromIndexes(size, a, pa);
        union.unionWith(fromIndexes(size, b, pb));
        expect(union.equals(fromIndexes(size, [...a, ...b]))).toBe(true);
        const inter = fromIndexes(size, a, pa);
        inter.intersectWith(fromIndexes(size, b, pb));
        const setB = new Set(b);
        expect(
          inter.equals(
            fromIndexes(
              size,
              a.filter((i) => setB.has(i)),
            ),
          ),
        ).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('mark reports (as a non-zero number) that a bit was 0, and sets it; get reads it', () => {
    const bits = new BitArray(100);
    expect(bits.get(5)).toBe(false);
    expect(bits.mark(5)).not.toBe(0);
    expect(bits.mark(5)).toBe(0);
    expect(bits.get(5)).toBe(true);
    expect(bits.setCount()).toBe(1);
    expect(bits.counterBits).toBe(0);
    expect(bits.bitBytes).toBe(bits.pages[0]);
    expect(new BitArray(64, { pageBytes: 8 }).bitBytes).toBeDefined();
    expect(new BitArray(65, { pageBytes: 8 }).bitBytes).toBeUndefined();
  });

  it('wraps caller bytes in place with copy: false, and copies by default', () => {
    const bytes = new Uint8Array(4);
    const inPlace = new BitArray(32, { bytes, copy: false });
    inPlace.mark(9);
    expect(bytes[1]).toBe(0b10);
    const copied = new BitArray(32, { bytes });
    copied.mark(0);
    expect(bytes[0]).toBe(0);
    expect(copied.get(9)).toBe(true);
  });

  it('wraps an unaligned view in place and still counts correctly', () => {
    const buffer = new Uint8Array(11).fill(0xff);
    const bits = new BitArray(80, { bytes: buffer.subarray(1), copy: false });
    expect(bits.popcount()).toBe(80);
  });

  it('clone is independent; clear zeroes everything', () => {
    const a = fromIndexes(64, [1, 2, 3], 8);
    const b = a.clone();
    b.mark(10);
    expect(a.get(10)).toBe(false);
    expect(b.pages.length).toBe(1);
    a.clear();
    expect(a.popcount()).toBe(0);
  });

  it('detects padding bits set past the last bit', () => {
    const bytes = Uint8Array.from([0, 0b0001_0000]);
    expect(new BitArray(12, { bytes }).hasPaddingBits()).toBe(true);
    expect(new BitArray(13, { bytes }).hasPaddingBits()).toBe(false);
    expect(new BitArray(16, { bytes: Uint8Array.from([0, 0xff]) }).hasPaddingBits()).toBe(false);
  });

  it('indexes exactly above 2^32 bits with small pages standing in for 512 MiB ones', () => {
    // Same arithmetic as a 2^33-bit array: page = ⌊i / pageBits⌋ in doubles, offset below the page size.
    const bits = new BitArray(8 * 64 * 5, { pageBytes: 64 });
    for (const i of [0, 511, 512, 1535, 1536, 2559]) bits.mark(i);
    expect(bits.popcount()).toBe(6);
    for (const i of [0, 511, 512, 1535, 1536, 2559]) expect(bits.get(i)).toBe(true);
    expect(bits.get(513)).toBe(false);
  });

  it('rejects bad sizes, page sizes and byte lengths with typed errors', () => {
    for (const size of [0, -1, 1.5, 2 ** 48 + 1, Number.NaN]) {
      expect(() => new BitArray(size)).toThrow(InvalidArgumentError);
    }
    expect(() => new BitArray(8, { pageBytes: 12 })).toThrow(
      /pageBytes must be a power of two in \[8, 2\^29\]/,
    );
    expect(() => new BitArray(8, { pageBytes: 4 })).toThrow(InvalidArgumentError);
    expect(() => new BitArray(9, { bytes: new Uint8Array(1) })).toThrow(/exactly 2 bytes for 9 bits, got 1/);
  });
});

describe('popcount32', () => {
  it('counts bits of any 32-bit word', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (x) => {
        expect(popcount32(x)).toBe(
          x
            .toString(2)
            .split('')
            .filter((c) => c === '1').length,
        );
      }),
    );
  });
});
