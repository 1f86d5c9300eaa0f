import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesEqual, pagesEqual } from '../src/pages.js';

/** `bytes` copied to `offset` bytes into a fresh buffer: a view that is 4-byte aligned or not, as `offset` says. */
function at(bytes: Uint8Array, offset: number): Uint8Array {
  const view = new Uint8Array(new ArrayBuffer(offset + bytes.length), offset, bytes.length);
  view.set(bytes);
  return view;
}

describe('bytesEqual and pagesEqual', () => {
  it('answer as a byte-by-byte comparison, aligned or not, for equal arrays and arrays one byte apart', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.nat(7),
        fc.nat(7),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, offsetX, offsetY, where, flip) => {
          const x = at(bytes, offsetX);
          const y = at(bytes, offsetY);
          expect(bytesEqual(x, y)).toBe(true);
          expect(pagesEqual([x, x], [y, y])).toBe(true);
          if (bytes.length === 0) return;
          const i = where % bytes.length;
          y[i] = y[i]! ^ flip;
          expect(bytesEqual(x, y)).toBe(false);
          expect(bytesEqual(y, x)).toBe(false);
          expect(pagesEqual([x, x], [x, y])).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('are false for different lengths and page counts', () => {
    expect(bytesEqual(new Uint8Array(8), new Uint8Array(9))).toBe(false);
    expect(pagesEqual([new Uint8Array(4)], [new Uint8Array(4), new Uint8Array(4)])).toBe(false);
    expect(pagesEqual([], [])).toBe(true);
  });
});
