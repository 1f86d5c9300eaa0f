import fc from 'fast-check';
import murmurReference from 'murmurhash3js-revisited';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { hashInto, hashRangeInto, murmur3x86_128, murmur3x86_128Into } from '../src/murmur3.js';

const utf8 = new TextEncoder();

/** The reference oracle: murmurhash3js-revisited's x86.hash128 (hex of h1..h4) over the key's UTF-8 bytes. */
function reference(key: string | Uint8Array, seed: number): string {
  const bytes = typeof key === 'string' ? utf8.encode(key) : key;
  return murmurReference.x86.hash128(bytes, seed);
}

function hex(key: string | Uint8Array, seed: number): string {
  return murmur3x86_128(key, seed)
    .map((word) => word.toString(16).padStart(8, '0'))
    .join('');
}

/** Strings of arbitrary UTF-16 code units: lone and paired surrogates, BMP and astral characters. */
const anyUtf16 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 80 })
  .map((units) => String.fromCharCode(...units));
const seeds = fc.integer({ min: 0, max: 0xffffffff });

describe('murmur3x86_128', () => {
  it('matches fixed reference vectors (smhasher values, via murmurhash3js-revisited)', () => {
    const vectors: [string, number, string][] = [
      ['', 0, '00000000000000000000000000000000'],
      ['', 1, '88c4adec54d201b954d201b954d201b9'],
      ['a', 0, 'a794933c5556b01b5556b01b5556b01b'],
      ['hello', 0, '2b2444a0db91def79adb31b69adb31b6'],
      ['hello', 42, '9c4f9a01053404f6886f9b95886f9b95'],
      ['The quick brown fox jumps over the lazy dog', 0, '2f1583c3ecee2c675d7bf66ce5e91d2c'],
      ['0123456789abcdef', 0, 'fb7d440936aed30a48ad1d9b572b3bfd'],
      ['héllo wörld ✓ 😀', 2147483647, 'fb1ff86fc172266731f568a0dd687ce5'],
      ['https://example.com/a/b?c=d', 0xffffffff, 'f4016e2514a966eddd23bec56034018a'],
    ];
    for (const [key, seed, expected] of vectors) {
      expect(hex(key, seed), `${JSON.stringify(key)} seed ${seed}`).toBe(expected);
      expect(hex(utf8.encode(key), seed)).toBe(expected);
    }
  });

  it('agrees with the reference on arbitrary full-Unicode strings and seeds (10,000 cases)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 100 }), anyUtf16), seeds, (key, seed) => {
        expect(hex(key, seed)).toBe(reference(key, seed));
      }),
      { numRuns: 10_000 },
    );
  });

  it('agrees with the reference on byte arrays of every length from 0 to 1100 (10,000 cases)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 1100 }), seeds, (key, seed) => {
        expect(hex(key, seed)).toBe(reference(key, seed));
      }),
      { numRuns: 10_000 },
    );
    for (let length = 0; length <= 1100; length++) {
      const key = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);
      expect(hex(key, length)).toBe(reference(key, length));
    }
  });

  it('hashes a string exactly as its UTF-8 bytes, lone surrogates included', () => {
    fc.assert(
      fc.property(anyUtf16, seeds, (key, seed) => {
        expect(murmur3x86_128(key, seed)).toEqual(murmur3x86_128(utf8.encode(key), seed));
      }),
      { numRuns: 2_000 },
    );
    expect(hex('\ud800', 0)).toBe(hex(new Uint8Array([0xef, 0xbf, 0xbd]), 0));
  });

  it('handles long non-ASCII keys past the reusable buffer and then short ones again', () => {
    const long = 'ü'.repeat(50_000);
    expect(hex(long, 7)).toBe(reference(long, 7));
    expect(hex('ß', 7)).toBe(reference('ß', 7));
  });

  it('hashes a Uint8Array view by its own bytes, not its whole buffer', () => {
    const buffer = new Uint8Array([9, 9, 104, 101, 108, 108, 111, 9]);
    expect(hex(buffer.subarray(2, 7), 0)).toBe(hex('hello', 0));
  });

  it('writes the four words into a caller buffer without allocating a result', () => {
    const out = new Uint32Array(4);
    murmur3x86_128Into('hello', 42, out);
    expect(Array.from(out)).toEqual(murmur3x86_128('hello', 42));
  });

  it('rejects keys that are neither strings nor Uint8Arrays, and bad seeds, with typed errors', () => {
    for (const bad of [42, null, undefined, {}, [1, 2], new Uint16Array(2), Symbol('x')]) {
      expect(() => murmur3x86_128(bad as never)).toThrow(InvalidArgumentError);
    }
    expect(() => murmur3x86_128(42 as never)).toThrow(/key must be a string or a Uint8Array, got number 42/);
    for (const seed of [-1, 2 ** 32, 1.5, Number.NaN]) {
      expect(() => murmur3x86_128('a', seed)).toThrow(/seed must be an integer in \[0, 2\^32 - 1\]/);
    }
  });
});

describe('hashRangeInto', () => {
  it('hashes bytes where they lie as hashInto hashes them as a key, and agrees with the reference', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        fc.nat(40),
        fc.nat(40),
        fc.nat(0xffffffff),
        (bytes, before, after, seed) => {
          // The key inside a larger buffer, with bytes on both sides that must not be read.
          const buffer = new Uint8Array(before + bytes.length + after).fill(0xa5);
          buffer.set(bytes, before);
          const inPlace = new Int32Array(4);
          hashRangeInto(buffer, before, before + bytes.length, seed, inPlace);
          const asKey = new Int32Array(4);
          hashInto(bytes, seed, asKey, 'test');
          expect(inPlace).toEqual(asKey);
          const hex = [...inPlace].map((word) => (word >>> 0).toString(16).padStart(8, '0')).join('');
          expect(hex).toBe(reference(bytes, seed));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
