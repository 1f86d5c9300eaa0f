import { setFlagsFromString } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError, UnsupportedVersionError } from '../src/errors.js';
import {
  decodeEnvelope,
  encodeEnvelope,
  getUint64,
  HEADER_BYTES,
  MIN_ENVELOPE_BYTES,
  setUint64,
} from '../src/format.js';
import { TOY_STANDARD } from './support/toy-filter.js';

/** A bitwise CRC-32C: the test's own oracle for the checksum bytes (not used by the library). */
function crc32cBitwise(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function sample(payload: Uint8Array, params = new Uint8Array(8).fill(7), kind = 1) {
  return encodeEnvelope({
    kind,
    seed: 0xdeadbeef,
    params,
    payloadLength: payload.length,
    writePayload: (target, offset) => target.set(payload, offset),
  });
}

describe('envelope', () => {
  it('writes the documented byte layout', () => {
    const bytes = sample(Uint8Array.from([0xaa, 0xbb]));
    const hex = Buffer.from(bytes).toString('hex');
    expect(hex.slice(0, 48)).toBe(
      // magic    ver kind hash flags seed(LE)  plen  rsvd  payload length (u64 LE)
      '424c4d4b' + '01' + '01' + '01' + '00' + 'efbeadde' + '0800' + '0000' + '0200000000000000',
    );
    expect(hex.slice(48, 64)).toBe('0707070707070707');
    expect(hex.slice(64, 68)).toBe('aabb');
    const crc = new DataView(bytes.buffer).getUint32(bytes.length - 4, true);
    expect(crc).toBe(crc32cBitwise(bytes.subarray(0, bytes.length - 4)));
    expect(bytes.length).toBe(HEADER_BYTES + 8 + 2 + 4);
  });

  it('round-trips any params and payload, as views into the input', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }).map((p) => p.subarray(0, p.length - (p.length % 8))),
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 1, max: 255 }),
        (params, payload, kind) => {
          const bytes = sample(payload, params, kind);
          const envelope = decodeEnvelope(bytes);
          expect(envelope.kind).toBe(kind);
          expect(envelope.seed).toBe(0xdeadbeef);
          expect(envelope.version).toBe(1);
          expect(
            new Uint8Array(envelope.params.buffer, envelope.params.byteOffset, envelope.params.byteLength),
          ).toEqual(params);
          expect(envelope.payload).toHaveLength(1);
          expect(envelope.payload[0]).toEqual(payload);
          expect(envelope.payload[0]!.buffer).toBe(bytes.buffer);
          expect(envelope.payloadLength).toBe(payload.length);
          expect(envelope.byteLength).toBe(bytes.length);
        },
      ),
    );
  });

  it('rejects every truncation with a FormatError', () => {
    const bytes = sample(new Uint8Array(40).fill(3));
    for (let length = 0; length < bytes.length; length++) {
      expect(() => decodeEnvelope(bytes.subarray(0, length))).toThrow(FormatError);
    }
  });

  it('rejects every single-bit flip with a FormatError', () => {
    const bytes = sample(Uint8Array.from({ length: 33 }, (_, i) => i));
    for (let i = 0; i < bytes.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const flipped = bytes.slice();
        flipped[i]! ^= 1 << bit;
        expect(() => decodeEnvelope(flipped), `byte ${i} bit ${bit}`).toThrow(FormatError);
      }
    }
  });

  it('answers random mutations with a FormatError or an identical decode, never another error', () => {
    const original = sample(Uint8Array.from({ length: 64 }, (_, i) => i * 7));
    const mutation = fc.oneof(
      fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }).map((m) => ['set', m] as const),
      fc.nat().map((n) => ['truncate', n] as const),
      fc.uint8Array({ minLength: 1, maxLength: 16 }).map((extra) => ['append', extra] as const),
    );
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 5 }), (mutations) => {
        let bytes = original.slice();
        for (const [type, arg] of mutations) {
          if (type === 'set') bytes[arg.at % bytes.length] = arg.value;
          else if (type === 'truncate') bytes = bytes.subarray(0, arg % (bytes.length + 1));
          else bytes = Uint8Array.from([...bytes, ...arg]);
        }
        try {
          const envelope = decodeEnvelope(bytes);
          expect(bytes).toEqual(original);
          expect(envelope.payloadLength).toBe(64);
        } catch (error) {
          expect(error).toBeInstanceOf(FormatError);
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('rejects foreign bytes (random data, JSON, other formats) with a FormatError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(() => decodeEnvelope(bytes)).toThrow(FormatError);
      }),
    );
    expect(() => decodeEnvelope(new TextEncoder().encode('{"bits": 100, "hashes": 3, "seed": 0}'))).toThrow(
      /magic bytes/,
    );
    // Short foreign bytes are foreign; short bytes that start like a filter are short.
    expect(() => decodeEnvelope(new Uint8Array(10))).toThrow(/magic bytes/);
    expect(() => decodeEnvelope(new Uint8Array([0x42, 0x4c, 0x4d, 0x4b, 1, 1]))).toThrow(
      /shorter than the smallest filter file \(28 bytes\)/,
    );
    expect(() => decodeEnvelope('BLMK' as never)).toThrow(FormatError);
  });

  it('rejects a hostile payload length before allocating anything', () => {
    const bytes = sample(new Uint8Array(4));
    const view = new DataView(bytes.buffer);
    setUint64(view, 16, 2 ** 52);
    expect(() => decodeEnvelope(bytes)).toThrow(
      /announces 8 params bytes and 4503599627370496 payload bytes/,
    );
    view.setUint32(20, 0xffffffff, true);
    expect(() => decodeEnvelope(bytes)).toThrow(/payload length must be below 2\^53/);
  });

  it("reads a u64 below 2^30 as a small integer, as the engine's own counts are", () => {
    // V8 keeps an object field as small integers until one heap number is stored in it, then as doubles for every
    // object of that shape: a count read from a file as a heap number slowed `add` on every filter of the process.
    setFlagsFromString('--allow-natives-syntax');
    const isSmallInteger = new Function('value', 'return %IsSmi(value)') as (value: number) => boolean;
    setFlagsFromString('--no-allow-natives-syntax');
    const view = new DataView(new ArrayBuffer(8));
    for (const value of [0, 1, 20_000, 2 ** 30 - 1]) {
      setUint64(view, 0, value);
      const read = getUint64(view, 0, 'test', 'count');
      expect(read).toBe(value);
      expect(isSmallInteger(read)).toBe(true);
    }
    for (const value of [2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1]) {
      setUint64(view, 0, value);
      expect(getUint64(view, 0, 'test', 'count')).toBe(value);
    }
  });

  it('says when a file is from a newer format version', () => {
    const bytes = sample(new Uint8Array(2));
    bytes[4] = 2;
    expect(() => decodeEnvelope(bytes)).toThrow(UnsupportedVersionError);
    expect(() => decodeEnvelope(bytes)).toThrow(
      /format version 2 is newer than this reader, which reads versions 1 to 1/,
    );
    try {
      decodeEnvelope(bytes);
    } catch (error) {
      expect((error as UnsupportedVersionError).version).toBe(2);
    }
    bytes[4] = 0;
    expect(() => decodeEnvelope(bytes)).toThrow(/format version must be in \[1, 1\], got 0/);
  });

  it('checks kind, hash algorithm, flags and reserved bytes', () => {
    const bytes = sample(new Uint8Array(2), undefined, 3);
    expect(() => decodeEnvelope(bytes, { expectedKind: TOY_STANDARD, where: 'S.deserialize' })).toThrow(
      /S.deserialize: these bytes hold a filter of kind 3, not a toy-standard filter \(kind 1\)/,
    );
    // Any kind id but 0 is an envelope; which ids are kinds is the table of @bloomkit/filters.
    expect(decodeEnvelope(sample(new Uint8Array(2), undefined, 200)).kind).toBe(200);
    for (const [offset, value, message] of [
      [5, 0, /filter kind must be in \[1, 255\], got 0/],
      [6, 3, /hash algorithm must be 1 \(MurmurHash3 x86_128\) or 2 \(XXH64\), got 3/],
      [7, 1, /flags must be 0/],
      [14, 1, /reserved header bytes/],
      [12, 9, /params length must be a multiple of 8/],
    ] as const) {
      const copy = bytes.slice();
      copy[offset] = value;
      expect(() => decodeEnvelope(copy, { verifyChecksum: false })).toThrow(message);
    }
  });

  it("refuses a file whose hash algorithm is not its kind's (2, XXH64, is the split-block kind's)", () => {
    const bytes = sample(new Uint8Array(2));
    bytes[6] = 2;
    expect(decodeEnvelope(bytes, { verifyChecksum: false }).hashAlgorithm).toBe(2);
    expect(() => decodeEnvelope(bytes, { verifyChecksum: false, expectedKind: TOY_STANDARD })).toThrow(
      /hash algorithm must be 1 \(MurmurHash3 x86_128\), got 2/,
    );
  });

  it('rejects trailing bytes unless asked to allow them (nested envelopes)', () => {
    const bytes = Uint8Array.from([...sample(new Uint8Array(3)), 1, 2]);
    expect(() => decodeEnvelope(bytes)).toThrow(/2 unexpected bytes after the filter's checksum/);
    expect(decodeEnvelope(bytes, { allowTrailing: true }).byteLength).toBe(bytes.length - 2);
  });

  it('can skip the checksum for O(1) opening', () => {
    const bytes = sample(new Uint8Array(3));
    bytes[bytes.length - 1]! ^= 0xff;
    expect(() => decodeEnvelope(bytes)).toThrow(/checksum mismatch/);
    expect(decodeEnvelope(bytes, { verifyChecksum: false }).payloadLength).toBe(3);
  });

  it('refuses params whose length is not a multiple of 8, with a typed error', async () => {
    const { InvalidArgumentError } = await import('../src/errors.js');
    expect(() => sample(new Uint8Array(1), new Uint8Array(5))).toThrow(InvalidArgumentError);
    expect(() => sample(new Uint8Array(1), new Uint8Array(5))).toThrow(
      /params length must be a multiple of 8/,
    );
  });

  it('has a 28-byte minimum', () => {
    expect(MIN_ENVELOPE_BYTES).toBe(28);
  });
});
