import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/errors.js';
import {
  decodeBase64,
  encodeBase64,
  fromFilterJson,
  MAX_JSON_FILE_BYTES,
  toFilterJson,
} from '../src/json.js';

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

describe('the JSON form', () => {
  it('holds the file, reads back from the object or its text, and checks the kind', () => {
    const file = Uint8Array.from([66, 76, 77, 75, 1, 2, 3]);
    const json = toFilterJson('w', 'standard', 1, file);
    expect(json).toEqual({ format: 'bloomkit', version: 1, kind: 'standard', base64: 'QkxNSwECAw==' });
    expect(fromFilterJson('w', json, 'standard')).toEqual(file);
    expect(fromFilterJson('w', JSON.stringify(json), 'standard')).toEqual(file);
    expect(() => fromFilterJson('w', json, 'blocked')).toThrow(/holds a standard filter, expected blocked/);
    expect(() => fromFilterJson('w', '{not json', 'standard')).toThrow(/not JSON/);
    expect(() => fromFilterJson('w', null, 'standard')).toThrow(/expected \{ format: 'bloomkit'/);
    expect(() => fromFilterJson('w', { format: 'other', base64: '' }, 'standard')).toThrow(FormatError);
    expect(MAX_JSON_FILE_BYTES).toBe(402_653_166);
  });
});
