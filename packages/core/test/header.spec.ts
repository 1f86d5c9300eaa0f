import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/errors.js';
import { encodeEnvelope } from '../src/format.js';
import { readHeader } from '../src/header.js';
import { FilterKind } from '../src/kinds.js';

const file = (kind: number) =>
  encodeEnvelope({
    kind,
    seed: 7,
    params: new Uint8Array(8),
    payloadLength: 3,
    writePayload: (target, at) => target.set([1, 2, 3], at),
  });

describe('readHeader', () => {
  it('says which kind any file holds, with its seed and sizes, from bytes or an ArrayBuffer', () => {
    const bytes = file(FilterKind.Scalable);
    const header = readHeader(bytes);
    expect(header).toEqual({
      version: 1,
      kind: 4,
      kindName: 'scalable',
      className: 'ScalableBloomFilter',
      seed: 7,
      paramsLength: 8,
      payloadLength: 3,
      byteLength: 39,
      checksumVerified: true,
    });
    const copy = bytes.slice();
    expect(readHeader(copy.buffer).kindName).toBe('scalable');
  });

  it('checks the checksum unless told not to, and refuses what is not a filter', () => {
    const bytes = file(FilterKind.Standard);
    bytes[30] = bytes[30]! ^ 1;
    expect(() => readHeader(bytes)).toThrow(/checksum mismatch/);
    expect(readHeader(bytes, { verifyChecksum: false }).checksumVerified).toBe(false);
    expect(() => readHeader(new Uint8Array(40))).toThrow(FormatError);
    expect(() => readHeader('BLMK' as never)).toThrow(
      /must be a Uint8Array, an ArrayBuffer or an array of Uint8Array parts, got string/,
    );
  });
});
