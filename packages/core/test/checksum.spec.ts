import CRC32C from 'crc-32/crc32c.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksumBackend, crc32c, crc32cJavaScript, setChecksumBackend } from '../src/checksum.js';
import { crc32cSlicingBy8 } from './support/crc32c-slicing-by-8.js';

describe.each(['auto', 'javascript'] as const)('crc32c (backend %s)', (choice) => {
  beforeAll(() => {
    setChecksumBackend(choice);
  });
  afterAll(() => {
    setChecksumBackend('auto');
  });

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

  it('agrees with the slicing-by-8 implementation it replaced, on long buffers at every alignment', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 5_000 }),
        fc.nat(15),
        fc.nat(0xffffffff),
        (bytes, skip, previous) => {
          const view = bytes.subarray(Math.min(skip, bytes.length));
          expect(crc32c(view, previous)).toBe(crc32cSlicingBy8(view, previous));
        },
      ),
      { numRuns: 500 },
    );
    const big = new Uint8Array(1_000_003);
    for (let i = 0; i < big.length; i++) big[i] = Math.imul(i, 2654435761) >>> 24;
    for (let skip = 0; skip < 4; skip++) {
      const view = big.subarray(skip, big.length - skip);
      expect(crc32c(view)).toBe(crc32cSlicingBy8(view));
      expect(crc32c(view)).toBe(CRC32C.buf(view, 0) >>> 0);
    }
  });

  it('continues over chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.uint8Array(), (a, b) => {
        expect(crc32c(b, crc32c(a))).toBe(crc32c(Uint8Array.from([...a, ...b])));
      }),
    );
  });
});

describe('the WebAssembly CRC-32C', () => {
  it('runs here, and gives the answers of the JavaScript loop around its threshold and its 128 KiB window', () => {
    expect(checksumBackend()).toBe('webassembly');
    const big = new Uint8Array(3 * 131072 + 40);
    for (let i = 0; i < big.length; i++) big[i] = Math.imul(i + 7, 2246822519) >>> 24;
    for (const length of [1023, 1024, 1025, 4096, 131071, 131072, 131073, 262144, 262161, big.length - 16]) {
      for (const skip of [0, 1, 3, 13]) {
        const view = big.subarray(skip, skip + length);
        expect(crc32c(view, 0x1234567), `${length} at ${skip}`).toBe(crc32cJavaScript(view, 0x1234567));
        expect(crc32c(view)).toBe(CRC32C.buf(view, 0) >>> 0);
      }
    }
  });

  it('is what crc32c runs from 1 KiB on, and forcing JavaScript takes it out of the path', () => {
    expect(setChecksumBackend('javascript')).toBe('auto');
    expect(checksumBackend()).toBe('javascript');
    expect(setChecksumBackend('auto')).toBe('javascript');
    expect(checksumBackend()).toBe('webassembly');
  });
});
