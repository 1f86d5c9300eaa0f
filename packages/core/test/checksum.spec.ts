import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../src/checksum.js';

describe('crc32c', () => {
  it('has the CRC-32C check value', () => {
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('continues over chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.uint8Array(), (a, b) => {
        expect(crc32c(b, crc32c(a))).toBe(crc32c(Uint8Array.from([...a, ...b])));
      }),
    );
  });
});
