import fc from 'fast-check';
import murmurReference from 'murmurhash3js-revisited';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BATCH_KEYS,
  batchHashes,
  hashBackend,
  hashBatch,
  hashRangeBatch,
  setHashBackend,
} from '../src/batch-hash.js';
import type { Key } from '../src/key.js';
import { hashInto, hashRangeInto } from '../src/murmur3.js';

/** Keys of every sort a batch can meet: ASCII, any UTF-16 (lone surrogates too), and any bytes (not UTF-8 too). */
const ascii = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
  maxLength: 70,
});
const anyUtf16 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
  .map((units) => String.fromCharCode(...units));
const bytes = fc.uint8Array({ maxLength: 70 });
const anyKey: fc.Arbitrary<Key> = fc.oneof(
  { weight: 4, arbitrary: ascii },
  { weight: 1, arbitrary: anyUtf16 },
  { weight: 2, arbitrary: bytes },
);
const seeds = fc.integer({ min: 0, max: 0xffffffff });

/** Every key of `list` through hashBatch, batch after batch: key i's words at [4i, 4i + 4). */
function hashAll(list: readonly Key[], seed: number): Int32Array {
  const out = new Int32Array(list.length * 4);
  for (let start = 0; start < list.length; ) {
    const count = hashBatch(list, start, seed, 'test');
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(Math.min(BATCH_KEYS, list.length - start));
    out.set(batchHashes().subarray(0, count * 4), start * 4);
    start += count;
  }
  return out;
}

/** hashInto of each key: the single-key path every batch must equal. */
function hashEach(list: readonly Key[], seed: number): Int32Array {
  const out = new Int32Array(list.length * 4);
  for (let i = 0; i < list.length; i++) hashInto(list[i], seed, out, 'test', i * 4);
  return out;
}

afterEach(() => {
  setHashBackend('auto');
});

describe.each(['auto', 'javascript'] as const)('hashBatch (backend %s)', (choice) => {
  it('gives every key the words hashInto gives it: ASCII, non-ASCII, lone surrogates, bytes, mixed', () => {
    setHashBackend(choice);
    fc.assert(
      fc.property(fc.array(anyKey, { maxLength: 60 }), seeds, (list, seed) => {
        expect(hashAll(list, seed)).toEqual(hashEach(list, seed));
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with the reference implementation on a batch of ASCII keys of every tail length', () => {
    setHashBackend(choice);
    const list = Array.from({ length: 70 }, (_, i) => 'k'.repeat(i));
    const words = hashAll(list, 0x9747b28c);
    list.forEach((key, i) => {
      const hex = Array.from(words.subarray(i * 4, i * 4 + 4), (w) =>
        (w >>> 0).toString(16).padStart(8, '0'),
      );
      expect(hex.join('')).toBe(murmurReference.x86.hash128(new TextEncoder().encode(key), 0x9747b28c));
    });
  });

  it('splits long lists into batches of at most BATCH_KEYS, and keys past the window into batches of their own', () => {
    setHashBackend(choice);
    const list: Key[] = Array.from({ length: 2 * BATCH_KEYS + 17 }, (_, i) => `https://www.example/${i}`);
    list[700] = 'x'.repeat(200_000); // longer than the WebAssembly window (128 KiB)
    list[701] = new Uint8Array(150_000).fill(7);
    list[702] = `${'y'.repeat(100_000)}é`;
    expect(hashAll(list, 1)).toEqual(hashEach(list, 1));
  });
});

/** Lines of `bytes` between separators (a separator is any byte equal to `separator`), as the CLI splits them. */
function linesOf(bytes: Uint8Array, separator: number): { starts: Int32Array; ends: Int32Array } {
  const starts: number[] = [];
  const ends: number[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === separator) {
      starts.push(start);
      ends.push(i);
      start = i + 1;
    }
  }
  return { starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
}

describe.each(['auto', 'javascript'] as const)('hashRangeBatch (backend %s)', (choice) => {
  it('gives each range of a buffer the words hashRangeInto gives it, batch after batch', () => {
    setHashBackend(choice);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3_000 }),
        fc.integer({ min: 0, max: 255 }),
        seeds,
        (bytes, sep, seed) => {
          const { starts, ends } = linesOf(bytes, sep);
          const expected = new Int32Array(starts.length * 4);
          for (let j = 0; j < starts.length; j++)
            hashRangeInto(bytes, starts[j]!, ends[j]!, seed, expected, j * 4);
          const got = new Int32Array(starts.length * 4);
          for (let from = 0; from < starts.length; ) {
            const count = hashRangeBatch(bytes, starts, ends, from, starts.length, seed);
            expect(count).toBeGreaterThan(0);
            got.set(batchHashes().subarray(0, count * 4), from * 4);
            from += count;
          }
          expect(got).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops at `to`, at BATCH_KEYS ranges, and takes a range longer than the WebAssembly window alone', () => {
    setHashBackend(choice);
    const bytes = new Uint8Array(400_000).fill(0x61);
    const starts = Int32Array.from({ length: 3_000 }, (_, j) => j * 10);
    const ends = Int32Array.from(starts, (start) => start + 9);
    ends[2_999] = 300_000; // the last range: 270 KiB
    expect(hashRangeBatch(bytes, starts, ends, 0, 5, 7)).toBe(5);
    expect(hashRangeBatch(bytes, starts, ends, 0, 3_000, 7)).toBe(BATCH_KEYS);
    expect(hashRangeBatch(bytes, starts, ends, 2_999, 3_000, 7)).toBe(1);
    const expected = new Int32Array(4);
    hashRangeInto(bytes, starts[2_999]!, ends[2_999]!, 7, expected);
    expect(batchHashes().subarray(0, 4)).toEqual(expected);
  });
});

describe('the backends', () => {
  it('runs on WebAssembly here, and on JavaScript when forced', () => {
    expect(hashBackend()).toBe('webassembly');
    expect(setHashBackend('javascript')).toBe('auto');
    expect(hashBackend()).toBe('javascript');
    expect(setHashBackend('auto')).toBe('javascript');
  });

  it('hashes the same batch alike on both, so a filter built on one answers on the other', () => {
    fc.assert(
      fc.property(fc.array(anyKey, { minLength: 1, maxLength: 40 }), seeds, (list, seed) => {
        setHashBackend('javascript');
        const script = hashAll(list, seed);
        setHashBackend('auto');
        expect(hashAll(list, seed)).toEqual(script);
      }),
      { numRuns: 200 },
    );
  });
});
