import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/errors.js';
import { decodeFilterParams, encodeFilterParams, FILTER_PARAMS_BYTES } from '../src/filter-params.js';

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

describe('filter params block', () => {
  it('round-trips every valid combination', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 48 }),
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom(0, 4, 8, 16),
        fc.nat(),
        fc.option(
          fc.tuple(fc.integer({ min: 1, max: 2 ** 40 }), fc.double({ min: 1e-12, max: 0.99, noNaN: true })),
        ),
        (bits, hashes, counterBits, count, sizing) => {
          const params = {
            bits,
            hashes,
            counterBits,
            count,
            capacity: sizing?.[0],
            fpr: sizing?.[1],
          };
          expect(decodeFilterParams(view(encodeFilterParams(params)), 'T')).toEqual(params);
        },
      ),
    );
  });

  it('lays fields out at the documented offsets', () => {
    const bytes = encodeFilterParams({
      bits: 0x1_0000_0002,
      hashes: 7,
      counterBits: 4,
      count: 3,
      capacity: 9,
      fpr: 0.5,
    });
    expect(bytes.length).toBe(FILTER_PARAMS_BYTES);
    expect(Buffer.from(bytes).toString('hex')).toBe(
      '0200000001000000' +
        '07000000' +
        '04000000' +
        '0300000000000000' +
        '0900000000000000' +
        '000000000000e03f',
    );
  });

  it('rejects out-of-range fields naming them', () => {
    const good = () =>
      encodeFilterParams({ bits: 100, hashes: 3, counterBits: 0, count: 0, capacity: 10, fpr: 0.1 });
    const cases: [(b: DataView) => void, RegExp][] = [
      [(v) => v.setUint32(0, 0, true), /bits must be in \[1, 2\^48\], got 0/],
      [(v) => v.setUint32(4, 0x10000, true), /bits must be in \[1, 2\^48\]/],
      [(v) => v.setUint32(8, 65, true), /hashes must be in \[1, 64\], got 65/],
      [(v) => v.setUint8(13, 1), /reserved params bytes/],
      [(v) => v.setFloat64(32, 1.5, true), /fpr must be 0 \(none\) or in \(0, 1\), got 1.5/],
      [(v) => v.setFloat64(32, Number.NaN, true), /fpr must be/],
      [(v) => v.setFloat64(32, 0, true), /capacity and fpr must both be set or both be 0/],
      [(v) => v.setUint32(20, 0x200000, true), /count must be below 2\^53/],
    ];
    for (const [mutate, message] of cases) {
      const bytes = good();
      mutate(view(bytes));
      expect(() => decodeFilterParams(view(bytes), 'T')).toThrow(message);
      expect(() => decodeFilterParams(view(bytes), 'T')).toThrow(FormatError);
    }
    expect(() => decodeFilterParams(view(new Uint8Array(32)), 'T')).toThrow(
      /params must be 40 bytes, got 32/,
    );
  });
});
