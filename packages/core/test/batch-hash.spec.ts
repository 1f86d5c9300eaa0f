import fc from 'fast-check';
import murmurReference from 'murmurhash3js-revisited';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BATCH_KEYS,
  batchHashes,
  batchLineEnds,
  hashBackend,
  hashBatch,
  hashLineBatch,
} from '../src/batch-hash.js';
import { setKernelBackend } from '../src/kernel/backend.js';
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
  setKernelBackend('auto');
});

describe.each(['auto', 'javascript'] as const)('hashBatch (backend %s)', (choice) => {
  it('gives every key the words hashInto gives it: ASCII, non-ASCII, lone surrogates, bytes, mixed', () => {
    setKernelBackend(choice);
    fc.assert(
      fc.property(fc.array(anyKey, { maxLength: 60 }), seeds, (list, seed) => {
        expect(hashAll(list, seed)).toEqual(hashEach(list, seed));
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with the reference implementation on a batch of ASCII keys of every tail length', () => {
    setKernelBackend(choice);
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
    setKernelBackend(choice);
    const list: Key[] = Array.from({ length: 2 * BATCH_KEYS + 17 }, (_, i) => `https://www.example/${i}`);
    list[700] = 'x'.repeat(200_000); // longer than the WebAssembly window (128 KiB)
    list[701] = new Uint8Array(150_000).fill(7);
    list[702] = `${'y'.repeat(100_000)}é`;
    expect(hashAll(list, 1)).toEqual(hashEach(list, 1));
  });
});

/** A buffer range to split into lines, and how. */
interface LineCase {
  bytes: Uint8Array;
  from: number;
  to: number;
  separator: number;
  crlf: boolean;
  seed: number;
}

/**
 * The lines of `bytes[from, to)` that end with `separator`, split one byte at a time: each line's end (just past its
 * separator) and its key's hash, the key without the separator and, with `crlf`, without a CR just before it.
 */
function linesOf({ bytes, from, to, separator, crlf, seed }: LineCase) {
  const ends: number[] = [];
  const hashes: number[] = [];
  const words = new Int32Array(4);
  let start = from;
  for (let i = from; i < to; i++) {
    if (bytes[i] !== separator) continue;
    const keyEnd = crlf && i > start && bytes[i - 1] === 0x0d ? i - 1 : i;
    hashRangeInto(bytes, start, keyEnd, seed, words);
    hashes.push(...words);
    ends.push(i + 1);
    start = i + 1;
  }
  return { ends, hashes };
}

/** Every batch hashLineBatch makes of `bytes[from, to)`, one after another: their line ends and hashes. */
function batchedLines({ bytes, from, to, separator, crlf, seed }: LineCase) {
  const ends: number[] = [];
  const hashes: number[] = [];
  const counts: number[] = [];
  for (let at = from; ; ) {
    const count = hashLineBatch(bytes, at, to, separator, crlf, seed);
    if (count === 0) break;
    counts.push(count);
    ends.push(...batchLineEnds().subarray(0, count));
    hashes.push(...batchHashes().subarray(0, count * 4));
    at = ends[ends.length - 1]!;
  }
  return { ends, hashes, counts };
}

/** Bytes that are mostly separators, CRs and a few others, so lines are short, empty, CR-ended or not. */
const lineBytes = fc
  .uint8Array({ maxLength: 3_000 })
  .map((raw) => raw.map((b) => (b < 40 ? 10 : b < 60 ? 13 : b < 70 ? 0 : b)));

describe.each(['auto', 'javascript'] as const)('hashLineBatch (backend %s)', (choice) => {
  it('finds the lines of a buffer range and gives each the words hashRangeInto gives its key, batch after batch', () => {
    setKernelBackend(choice);
    fc.assert(
      fc.property(
        lineBytes,
        fc.constantFrom(10, 0, 13, 0x61),
        fc.boolean(),
        seeds,
        fc.nat(),
        fc.nat(),
        (bytes, separator, crlf, seed, a, b) => {
          const from = bytes.length === 0 ? 0 : a % (bytes.length + 1);
          const to = from + (b % (bytes.length - from + 1));
          const lineCase = { bytes, from, to, separator, crlf, seed };
          const expected = linesOf(lineCase);
          const got = batchedLines(lineCase);
          expect(got.ends).toEqual(expected.ends);
          expect(got.hashes).toEqual(expected.hashes);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('takes at most BATCH_KEYS lines, a line longer than the WebAssembly window alone, and no line without its separator', () => {
    setKernelBackend(choice);
    // 3,000 short lines, one of 270 KiB, 2,000 short lines, one of 100 KiB (after batches of short lines), and a
    // last line with no separator.
    const parts = [
      ...Array.from({ length: 3_000 }, (_, i) => `l${i}\r\n`),
      `${'a'.repeat(270_000)}\n`,
      ...Array.from({ length: 2_000 }, (_, i) => `m${i}\n`),
      `${'b'.repeat(100_000)}\r\n`,
      'no separator',
    ];
    const bytes = new TextEncoder().encode(parts.join(''));
    const lineCase = { bytes, from: 0, to: bytes.length, separator: 10, crlf: true, seed: 9 };
    const got = batchedLines(lineCase);
    const expected = linesOf(lineCase);
    expect(got.ends).toEqual(expected.ends);
    expect(got.hashes).toEqual(expected.hashes);
    expect(got.ends.length).toBe(5_002);
    expect(Math.max(...got.counts)).toBe(BATCH_KEYS);
    // With WebAssembly a line longer than its window (line 3,000) is hashed alone, in JavaScript.
    let batch = 0;
    for (let lines = got.counts[0]!; lines <= 3_000; lines += got.counts[batch]!) batch++;
    if (choice === 'auto') expect(got.counts[batch]).toBe(1);
    expect(hashLineBatch(bytes, bytes.length - 12, bytes.length, 10, true, 9)).toBe(0);
    expect(hashLineBatch(bytes, 5, 5, 10, true, 9)).toBe(0);
  });
});

describe('the backends', () => {
  it('runs on WebAssembly here, and on JavaScript when forced', () => {
    expect(hashBackend()).toBe('webassembly');
    expect(setKernelBackend('javascript')).toBe('auto');
    expect(hashBackend()).toBe('javascript');
    expect(setKernelBackend('auto')).toBe('javascript');
  });

  it('hashes the same batch alike on both, so a filter built on one answers on the other', () => {
    fc.assert(
      fc.property(fc.array(anyKey, { minLength: 1, maxLength: 40 }), seeds, (list, seed) => {
        setKernelBackend('javascript');
        const script = hashAll(list, seed);
        setKernelBackend('auto');
        expect(hashAll(list, seed)).toEqual(script);
      }),
      { numRuns: 200 },
    );
  });
});
