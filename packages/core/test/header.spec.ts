import { describe, expect, it } from 'vitest';
import { FormatError, InvalidArgumentError, UnsupportedVersionError } from '../src/errors.js';
import { encodeEnvelope } from '../src/format.js';
import { readFileHeader, readHeader } from '../src/header.js';

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
    const bytes = file(4);
    const header = readHeader(bytes);
    expect(header).toEqual({
      version: 1,
      kind: 4,
      hashAlgorithm: 1,
      seed: 7,
      paramsLength: 8,
      payloadLength: 3,
      byteLength: 39,
      checksumVerified: true,
    });
    const copy = bytes.slice();
    expect(readHeader(copy.buffer).kind).toBe(4);
  });

  it('checks the checksum unless told not to, and refuses what is not a filter', () => {
    const bytes = file(1);
    bytes[30] = bytes[30]! ^ 1;
    expect(() => readHeader(bytes)).toThrow(/checksum mismatch/);
    expect(readHeader(bytes, { verifyChecksum: false }).checksumVerified).toBe(false);
    expect(() => readHeader(new Uint8Array(40))).toThrow(FormatError);
    expect(() => readHeader('BLMK' as never)).toThrow(
      /must be a Uint8Array, an ArrayBuffer or an array of Uint8Array parts, got string/,
    );
  });
});

describe('readFileHeader', () => {
  it('reads the header from the first 24 bytes and the file length, with every check of readHeader but the checksum', () => {
    const bytes = file(1);
    const header = readFileHeader(bytes.subarray(0, 24), bytes.length);
    expect(header).toEqual({ ...readHeader(bytes), checksumVerified: false });
    // Any prefix of at least 24 bytes does.
    expect(readFileHeader(bytes, bytes.length).payloadLength).toBe(header.payloadLength);
    // Lengths are checked against the file's length: one byte short is a truncated file, one more a trailer.
    expect(() => readFileHeader(bytes.subarray(0, 24), bytes.length - 1)).toThrow(FormatError);
    expect(() => readFileHeader(bytes.subarray(0, 24), bytes.length + 1)).toThrow(/unexpected bytes after/);
    expect(() => readFileHeader(bytes.subarray(0, 24), 10)).toThrow(/shorter than the smallest filter file/);
    const newer = bytes.slice(0, 24);
    newer[4] = 2;
    expect(() => readFileHeader(newer, bytes.length)).toThrow(UnsupportedVersionError);
    expect(() => readFileHeader(bytes.subarray(0, 20), bytes.length)).toThrow(InvalidArgumentError);
  });
});
