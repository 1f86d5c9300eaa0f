import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setKernelBackend } from '../../core/src/kernel/backend.js';
import { SplitBlockBloomFilter } from '../src/index.js';
import { xxh64Hasher } from '../src/xxh64-hasher.js';
import { xxh64Into } from '../src/xxh64-words.js';

const RUNS = Number(process.env.BLOOMKIT_FUZZ_RUNS ?? 2000);

/** Published XXH64 (seed 0) values: xxHash's own "" and "a", "abc", and Python xxhash's README example. */
const VECTORS: readonly [string, string][] = [
  ['', 'ef46db3751d8e999'],
  ['a', 'd24ec4f1a98c6e5b'],
  ['abc', '44bc2cf5ad770999'],
  ['Nobody inspects the spammish repetition', 'fbcea83c8a378bf1'],
];

function hex(out: Uint32Array): string {
  return out[1]!.toString(16).padStart(8, '0') + out[0]!.toString(16).padStart(8, '0');
}

describe('XXH64', () => {
  const out = new Uint32Array(2);
  it('gives the published values, in JavaScript and through the kernel, of bytes and of text', () => {
    const hasher = xxh64Hasher();
    expect(hasher.batch).toBeDefined();
    for (const [text, expected] of VECTORS) {
      const bytes = new TextEncoder().encode(text);
      xxh64Into(bytes, 0, bytes.length, out);
      expect(hex(out)).toBe(expected);
      hasher.bytes(bytes, 0, bytes.length, out);
      expect(hex(out)).toBe(expected);
      hasher.text(text, out);
      expect(hex(out)).toBe(expected);
    }
  });

  it('JavaScript and the kernel agree on every length 0-300 and on random bytes at any offset', () => {
    const hasher = xxh64Hasher();
    const other = new Uint32Array(2);
    for (let length = 0; length <= 300; length++) {
      const bytes = Uint8Array.from({ length: length + 3 }, (_, i) => (i * 151 + length * 7) & 0xff);
      xxh64Into(bytes, 3, length, out);
      hasher.bytes(bytes, 3, length, other);
      expect(hex(other)).toBe(hex(out));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(8), (bytes, skip) => {
        const start = Math.min(skip, bytes.length);
        xxh64Into(bytes, start, bytes.length - start, out);
        hasher.bytes(bytes, start, bytes.length - start, other);
        expect(hex(other)).toBe(hex(out));
      }),
      { numRuns: RUNS },
    );
  });

  it('hashes text as TextEncoder encodes it (non-ASCII, lone surrogates) and values past the window in JavaScript', () => {
    const hasher = xxh64Hasher();
    const other = new Uint32Array(2);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const bytes = new TextEncoder().encode(text);
        xxh64Into(bytes, 0, bytes.length, out);
        hasher.text(text, other);
        expect(hex(other)).toBe(hex(out));
      }),
      { numRuns: RUNS },
    );
    const long = 'é'.repeat(100_000);
    const bytes = new TextEncoder().encode(long);
    xxh64Into(bytes, 0, bytes.length, out);
    hasher.text(long, other);
    expect(hex(other)).toBe(hex(out));
    hasher.bytes(bytes, 0, bytes.length, other);
    expect(hex(other)).toBe(hex(out));
  });

  it('hashes a batch: value j of the window to hashes[2j], hashes[2j + 1]', () => {
    const { batch } = xxh64Hasher();
    const values = ['', 'a', 'abc', 'Nobody inspects the spammish repetition'];
    let at = 0;
    values.forEach((value, j) => {
      const { written } = new TextEncoder().encodeInto(value, batch!.window.subarray(at));
      batch!.starts[j] = at;
      batch!.ends[j] = at + written;
      at += written;
    });
    batch!.run(values.length);
    values.forEach((_, j) => {
      expect(hex(batch!.hashes.subarray(2 * j, 2 * j + 2))).toBe(VECTORS[j]![1]);
    });
  });

  it("follows core's switch: forced to JavaScript, no kernel, the same hashes and the same filter bytes", () => {
    const values = Array.from({ length: 5000 }, (_, i) => `https://example.com/${i}/é`);
    const ints = Array.from({ length: 3000 }, (_, i) => BigInt(i) * 7919n);
    const build = () => {
      const text = SplitBlockBloomFilter.create(5000, 0.01);
      text.addAll(values);
      const numbers = SplitBlockBloomFilter.create(3000, 0.01, { type: 'INT64' });
      numbers.addAll(ints);
      return [text.serialize(), numbers.serialize(), text.hasMany(values.slice(0, 100))];
    };
    expect(xxh64Hasher().batch).toBeDefined();
    const onKernel = build();
    const restore = setKernelBackend('javascript');
    try {
      expect(xxh64Hasher().batch).toBeUndefined();
      const other = new Uint32Array(2);
      xxh64Hasher().text(values[7]!, other);
      const bytes = new TextEncoder().encode(values[7]!);
      xxh64Into(bytes, 0, bytes.length, out);
      expect(hex(other)).toBe(hex(out));
      expect(build()).toEqual(onKernel);
    } finally {
      setKernelBackend(restore);
    }
    expect(xxh64Hasher().batch).toBeDefined();
  });
});
