import CRC32C from 'crc-32/crc32c.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../src/checksum.js';

describe('crc32c', () => {
  it('has the CRC-32C check value', () => {
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('agrees with the crc-32 package on any bytes, at any alignment and length', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat(7),
        fc.nat(0xffffffff),
        (bytes, skip, previous) => {
          const view = bytes.subarray(Math.min(skip, bytes.length));
          expect(crc32c(view)).toBe(CRC32C.buf(view, 0) >>> 0);
          expect(crc32c(view, previous)).toBe(CRC32C.buf(view, previous | 0) >>> 0);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('continues over chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.uint8Array(), (a, b) => {
        expect(crc32c(b, crc32c(a))).toBe(crc32c(Uint8Array.from([...a, ...b])));
      }),
    );
  });
});
