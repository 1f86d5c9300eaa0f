import { splitAt } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitArray } from '../src/bit-array.js';
import { crc32c } from '../src/checksum.js';
import { CounterArray } from '../src/counter-array.js';
import { FormatError } from '../src/errors.js';
import { decodeEnvelope, encodeEnvelope, encodeEnvelopeParts } from '../src/format.js';
import { crc32cOfParts, gatherBytes, lengthOf, sliceParts, toParts } from '../src/parts.js';

/** `bytes` cut at the given offsets (taken modulo its length + 1). */
function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  return splitAt(
    bytes,
    cuts.map((c) => (c % (bytes.length + 1)) / Math.max(1, bytes.length)),
  );
}

const bytesArb = fc.uint8Array({ maxLength: 200 });
const cutsArb = fc.array(fc.nat(), { maxLength: 8 });

describe('parts', () => {
  it('slice, gather, length and CRC over any split agree with the contiguous bytes', () => {
    fc.assert(
      fc.property(bytesArb, cutsArb, fc.nat(), fc.nat(), (bytes, cuts, a, b) => {
        const parts = split(bytes, cuts);
        const start = a % (bytes.length + 1);
        const length = b % (bytes.length - start + 1);
        expect(lengthOf(parts)).toBe(bytes.length);
        expect(gatherBytes(parts, start, length)).toEqual(bytes.subarray(start, start + length));
        const slices = sliceParts(parts, start, length);
        expect(lengthOf(slices)).toBe(length);
        for (const slice of slices) expect(slice.buffer).toBe(bytes.buffer);
        expect(crc32cOfParts(parts)).toBe(crc32c(bytes));
      }),
    );
  });

  it('refuses what is neither bytes nor a list of byte arrays', () => {
    expect(() => toParts('BLMK', 'here')).toThrow(FormatError);
    expect(() => toParts([new Uint8Array(1), 'x'], 'here')).toThrow(
      /part 1 of the input must be a Uint8Array/,
    );
    // A sparse list, and one whose reads throw: FormatErrors, not TypeErrors.
    const sparse = new Array<Uint8Array>(3);
    sparse[0] = new Uint8Array(28);
    expect(() => toParts(sparse, 'here')).toThrow(/part 1 of the input must be a Uint8Array, got undefined/);
    const hostile = new Proxy([new Uint8Array(1)], {
      get(target, key) {
        if (key === 'length') throw new Error('no length');
        return Reflect.get(target, key);
      },
    });
    expect(() => toParts(hostile, 'here')).toThrow(FormatError);
    expect(() => toParts(hostile, 'here')).toThrow(/reading the input's parts threw: Error: no length/);
    // The list is copied: changing it afterwards changes nothing.
    const list = [new Uint8Array(2)];
    const parts = toParts(list, 'here');
    list[0] = new Uint8Array(5);
    expect(parts[0]).toHaveLength(2);
    expect(toParts(new ArrayBuffer(3), 'here')[0]).toHaveLength(3);
  });
});

describe('envelope as parts', () => {
  const spec = (payload: Uint8Array) => ({ kind: 1, seed: 77, params: new Uint8Array(16).fill(9), payload });

  it('encodeEnvelopeParts joined is encodeEnvelope, and decodes from any split with the same fields', () => {
    fc.assert(
      fc.property(bytesArb, cutsArb, cutsArb, (payload, payloadCuts, fileCuts) => {
        const whole = encodeEnvelope({
          ...spec(payload),
          payloadLength: payload.length,
          writePayload: (target, offset) => target.set(payload, offset),
        });
        const parts = encodeEnvelopeParts({ ...spec(payload), payload: split(payload, payloadCuts) });
        const joined = new Uint8Array(lengthOf(parts));
        let at = 0;
        for (const part of parts) {
          joined.set(part, at);
          at += part.length;
        }
        expect(joined).toEqual(whole);
        const envelope = decodeEnvelope(split(whole, fileCuts));
        expect([envelope.kind, envelope.seed, envelope.payloadLength]).toEqual([1, 77, payload.length]);
        expect(gatherBytes(envelope.payload, 0, envelope.payloadLength)).toEqual(payload);
      }),
    );
  });

  it('finds a corrupt byte in any part, and truncation across parts', () => {
    const payload = Uint8Array.from({ length: 100 }, (_, i) => i);
    const whole = encodeEnvelope({
      ...spec(payload),
      payloadLength: payload.length,
      writePayload: (target, offset) => target.set(payload, offset),
    });
    for (let i = 0; i < whole.length; i += 7) {
      const bad = whole.slice();
      bad[i]! ^= 0x10;
      expect(() => decodeEnvelope(split(bad, [5, 30, 90]))).toThrow(FormatError);
    }
    expect(() => decodeEnvelope(split(whole.subarray(0, whole.length - 1), [5, 60]))).toThrow(/truncated/);
  });
});

describe('stores over parts', () => {
  it('use page-sized parts in place and copy any other split', () => {
    const bytes = Uint8Array.from({ length: 40 }, (_, i) => i);
    const aligned = [bytes.subarray(0, 16), bytes.subarray(16, 32), bytes.subarray(32)];
    const inPlace = new BitArray(320, { bytes: aligned, copy: false, pageBytes: 16 });
    expect(inPlace.pages[1]).toBe(aligned[1]);
    const copied = new BitArray(320, { bytes: split(bytes, [3, 17, 33]), copy: false, pageBytes: 16 });
    expect(copied.pages.flatMap((page) => [...page])).toEqual([...bytes]);
    expect(copied.pages[0]!.buffer).not.toBe(bytes.buffer);
    const counters = new CounterArray(80, 4, { bytes: split(bytes, [9]), pageBytes: 8 });
    for (let i = 0; i < 80; i++) expect(counters.get(i)).toBe((bytes[i >> 1]! >> ((i & 1) * 4)) & 15);
  });
});
