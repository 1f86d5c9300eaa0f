import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../src/base64.js';
import { FormatError } from '../src/errors.js';

describe("base64 (RFC 4648, Node's Buffer as the oracle)", () => {
  it('encodes and decodes any bytes exactly as Buffer does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64('t', text)).toEqual(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses bad characters, lengths and non-canonical padding with a FormatError', () => {
    for (const bad of ['A', 'AB=', 'ab!d', 'QR==', 'QUJ=', 'QQ=A', 'é===']) {
      expect(() => decodeBase64('t', bad), bad).toThrow(FormatError);
    }
    expect(decodeBase64('t', '')).toEqual(new Uint8Array(0));
  });
});
