/**
 * The bits of Parquet's split-block filter (apache/parquet-format BloomFilter.md): a value's block is its hash's high
 * half multiply-shifted by the block count (the caller's `base`, the block's first word), and in each word i of the
 * block the value's bit is (low32(h)·SALT[i] mod 2^32) >> 27. Also the word-level helpers the filter shares: set-bit
 * counts, folding, and the bitset's little-endian bytes as words.
 */
import { InvalidArgumentError } from '@bloomkit/core';

/**
 * The eight salts of parquet-format BloomFilter.md: word i of a value's block gets bit (low32(h)·SALT[i] mod 2^32) >> 27.
 */
const SALT = Uint32Array.of(
  0x47b6137b,
  0x44974d91,
  0x8824ad5b,
  0xa2b7289d,
  0x705495c7,
  0x2df1424b,
  0x9efc4947,
  0x5c6bfb31,
);
const S0 = SALT[0]! | 0;
const S1 = SALT[1]! | 0;
const S2 = SALT[2]! | 0;
const S3 = SALT[3]! | 0;
const S4 = SALT[4]! | 0;
const S5 = SALT[5]! | 0;
const S6 = SALT[6]! | 0;
const S7 = SALT[7]! | 0;

/** True where a Uint32Array's bytes are little-endian (every engine in use): the words are then the bitset's bytes. */
export const LITTLE_ENDIAN: boolean = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Sets the value's bit in each of the eight words at `words[base]`. */
export function setValueBits(words: Uint32Array, base: number, low: number): void {
  words[base] = words[base]! | (1 << (Math.imul(low, S0) >>> 27));
  words[base + 1] = words[base + 1]! | (1 << (Math.imul(low, S1) >>> 27));
  words[base + 2] = words[base + 2]! | (1 << (Math.imul(low, S2) >>> 27));
  words[base + 3] = words[base + 3]! | (1 << (Math.imul(low, S3) >>> 27));
  words[base + 4] = words[base + 4]! | (1 << (Math.imul(low, S4) >>> 27));
  words[base + 5] = words[base + 5]! | (1 << (Math.imul(low, S5) >>> 27));
  words[base + 6] = words[base + 6]! | (1 << (Math.imul(low, S6) >>> 27));
  words[base + 7] = words[base + 7]! | (1 << (Math.imul(low, S7) >>> 27));
}

/**
 * True when the value's eight bits at `words[base]` are all set: each word shifted so its bit is bit 0, the eight
 * AND-ed, with no branch, so the CPU overlaps the lookups of consecutive values in a batch.
 */
export function hasValueBits(words: Uint32Array, base: number, low: number): boolean {
  return (
    ((words[base]! >>> (Math.imul(low, S0) >>> 27)) &
      (words[base + 1]! >>> (Math.imul(low, S1) >>> 27)) &
      (words[base + 2]! >>> (Math.imul(low, S2) >>> 27)) &
      (words[base + 3]! >>> (Math.imul(low, S3) >>> 27)) &
      (words[base + 4]! >>> (Math.imul(low, S4) >>> 27)) &
      (words[base + 5]! >>> (Math.imul(low, S5) >>> 27)) &
      (words[base + 6]! >>> (Math.imul(low, S6) >>> 27)) &
      (words[base + 7]! >>> (Math.imul(low, S7) >>> 27)) &
      1) ===
    1
  );
}

/** A batch's hashes: (low, high) pairs, shared (a batch is hashed and used before the next). */
let sharedHashes: Uint32Array | undefined;
export function batchHashes(): Uint32Array {
  sharedHashes ??= new Uint32Array(2048);
  return sharedHashes;
}

/** A 64-bit hash's (low, high) halves, or an InvalidArgumentError. */
export function halves(where: string, hash: unknown): [number, number] {
  if (typeof hash !== 'bigint' || hash < 0n || hash >= 1n << 64n) {
    throw new InvalidArgumentError(
      `${where}: hash must be a bigint in [0, 2^64 - 1], got ${typeof hash === 'bigint' ? hash : typeof hash}`,
    );
  }
  return [Number(hash & 0xffffffffn), Number(hash >> 32n)];
}

/** Set bits of words [from, to). */
export function setBits(words: Uint32Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    let v = words[i]!;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return n;
}

/** Blocks 2j and 2j + 1 OR-ed into block j. */
export function foldWords(words: Uint32Array): Uint32Array {
  const out = new Uint32Array(words.length / 2);
  for (let block = 0; block < out.length / 8; block++) {
    for (let i = 0; i < 8; i++) out[8 * block + i] = words[16 * block + i]! | words[16 * block + 8 + i]!;
  }
  return out;
}

/** Little-endian bytes as words (a copy). */
export function wordsOf(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(bytes.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(words.buffer).set(bytes);
  else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < words.length; i++) words[i] = view.getUint32(4 * i, true);
  }
  return words;
}

/** The payload's parts as words (a copy). */
export function wordsOfParts(parts: readonly Uint8Array[], length: number): Uint32Array {
  if (parts.length === 1) return wordsOf(parts[0]!);
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return wordsOf(bytes);
}

/**
 * The mean over blocks of (set bits / 256)^8: the chance that a value never added finds its bit set in all eight
 * words of a block it picks uniformly (as arrow-rs estimates a filter's rate).
 */
export function meanBlockRate(words: Uint32Array): number {
  const blocks = words.length / 8;
  let sum = 0;
  for (let block = 0; block < blocks; block++) sum += (setBits(words, 8 * block, 8 * block + 8) / 256) ** 8;
  return sum / blocks;
}
