import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CounterArray, type CounterBits } from '../src/counter-array.js';
import { InvalidArgumentError } from '../src/errors.js';

const widths: CounterBits[] = [4, 8, 16];

describe('CounterArray', () => {
  it('packs 4-bit counters low nibble first, 8-bit one per byte, 16-bit little-endian', () => {
    const four = new CounterArray(3, 4);
    four.set(0, 0x3);
    four.set(1, 0xa);
    four.set(2, 0xf);
    expect(four.byteLength).toBe(2);
    expect(Array.from(four.pages[0]!)).toEqual([0xa3, 0x0f]);

    const eight = new CounterArray(2, 8);
    eight.set(1, 200);
    expect(Array.from(eight.pages[0]!)).toEqual([0, 200]);

    const sixteen = new CounterArray(2, 16);
    sixteen.set(1, 0x1234);
    expect(Array.from(sixteen.pages[0]!)).toEqual([0, 0, 0x34, 0x12]);
  });

  for (const width of widths) {
    it(`${width}-bit counters agree with a saturating model, across tiny pages`, () => {
      const max = 2 ** width - 1;
      const ops = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 400 });
      fc.assert(
        fc.property(ops, fc.constantFrom(8, 16, 2 ** 29), (sequence, pageBytes) => {
          const counters = new CounterArray(41, width, { pageBytes });
          const model = new Array<number>(41).fill(0);
          for (const [up, i] of sequence) {
            if (up) {
              const next = model[i] === max ? max : model[i]! + 1;
              expect(counters.increment(i)).toBe(next);
              model[i] = next;
            } else {
              const refused = model[i] === 0;
              expect(counters.decrement(i)).toBe(!refused);
              if (!refused && model[i] !== max) model[i]!--;
            }
          }
          for (let i = 0; i < 41; i++) expect(counters.get(i)).toBe(model[i]);
          expect(counters.saturatedCount()).toBe(model.filter((v) => v === max).length);
          expect(counters.nonZeroCount()).toBe(model.filter((v) => v > 0).length);
        }),
        { numRuns: width === 4 ? 300 : 100 },
      );
    });
  }

  it('keeps a saturated counter saturated (sticky) and refuses to go below zero', () => {
    const counters = new CounterArray(2, 4);
    for (let i = 0; i < 20; i++) counters.increment(0);
    expect(counters.get(0)).toBe(15);
    expect(counters.decrement(0)).toBe(true);
    expect(counters.get(0)).toBe(15);
    expect(counters.decrement(1)).toBe(false);
    expect(counters.get(1)).toBe(0);
  });

  it('clone, equals (across page sizes), clear and in-place wrapping', () => {
    const bytes = new Uint8Array(8);
    const a = new CounterArray(16, 4, { bytes, copy: false, pageBytes: 8 });
    a.increment(3);
    expect(bytes[1]).toBe(0x10);
    const b = a.clone();
    expect(b.equals(a)).toBe(true);
    const c = new CounterArray(16, 4, { bytes: bytes.slice(), pageBytes: 2 ** 29 });
    expect(c.equals(a)).toBe(true);
    b.increment(3);
    expect(b.equals(a)).toBe(false);
    a.clear();
    expect(a.nonZeroCount()).toBe(0);
  });

  it('detects a non-zero unused nibble', () => {
    expect(new CounterArray(3, 4, { bytes: Uint8Array.from([0, 0x10]) }).hasPaddingBits()).toBe(true);
    expect(new CounterArray(4, 4, { bytes: Uint8Array.from([0, 0x10]) }).hasPaddingBits()).toBe(false);
  });

  it('rejects bad sizes, widths and byte lengths with typed errors', () => {
    expect(() => new CounterArray(0, 4)).toThrow(InvalidArgumentError);
    expect(() => new CounterArray(4, 5 as CounterBits)).toThrow(/width must be one of 4, 8, 16, got 5/);
    expect(() => new CounterArray(3, 16, { bytes: new Uint8Array(5) })).toThrow(/exactly 6 bytes/);
  });
});

describe('CounterArray.unionWith / intersectWith', () => {
  it('adds counter-wise with saturation, and takes counter-wise minimums', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<CounterBits>(4, 8, 16),
        fc.array(fc.tuple(fc.nat(2 ** 16 - 1), fc.nat(2 ** 16 - 1)), { minLength: 1, maxLength: 50 }),
        (width, values) => {
          const max = 2 ** width - 1;
          const a = new CounterArray(values.length, width);
          const b = new CounterArray(values.length, width);
          values.forEach(([x, y], i) => {
            a.set(i, x % (max + 1));
            b.set(i, y % (max + 1));
          });
          const sum = a.clone();
          sum.unionWith(b);
          const min = a.clone();
          min.intersectWith(b);
          values.forEach(([x, y], i) => {
            expect(sum.get(i)).toBe(Math.min(max, (x % (max + 1)) + (y % (max + 1))));
            expect(min.get(i)).toBe(Math.min(x % (max + 1), y % (max + 1)));
          });
        },
      ),
    );
    expect(() => new CounterArray(3, 4).unionWith(new CounterArray(3, 8))).toThrow(/shapes differ/);
  });
});
