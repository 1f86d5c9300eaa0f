import { InvalidArgumentError } from './errors.js';
import { encodeUtf8 } from './internal/utf8.js';
import { assertKey, type Key } from './key.js';

/**
 * MurmurHash3 x86_128 (Austin Appleby, public domain, `MurmurHash3_x86_128` in smhasher's MurmurHash3.cpp).
 *
 * Contract: the four 32-bit words h1..h4 of the hash of the key's UTF-8 bytes, bit for bit what
 * `murmurhash3js-revisited`'s `x86.hash128` returns for the same bytes and seed (its hex string is h1..h4, each as
 * 8 hex digits). A string and its UTF-8 bytes hash alike.
 *
 * Speed: one pass over the key. An ASCII string is read by `charCodeAt`, four characters to a word, with no
 * encoding step; a string with any non-ASCII character is UTF-8 encoded into a buffer that is reused across calls.
 * {@link murmur3x86_128Into} allocates nothing per call; {@link murmur3x86_128} allocates the returned tuple.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

/** The four words h1..h4 of a 128-bit hash, as unsigned 32-bit integers. */
export type Hash128 = [h1: number, h2: number, h3: number, h4: number];

/** Hashes `key` (string or Uint8Array) with a 32-bit `seed` and returns h1..h4 as unsigned 32-bit integers. */
export function murmur3x86_128(key: Key, seed = 0): Hash128 {
  const out = new Uint32Array(4);
  murmur3x86_128Into(key, seed, out);
  return [out[0]!, out[1]!, out[2]!, out[3]!];
}

/**
 * Hashes `key` with `seed` into `out[0..3]` (h1..h4). Allocates nothing (a non-ASCII string longer than the shared
 * scratch buffer grows it once). `seed` must be an unsigned 32-bit integer.
 */
export function murmur3x86_128Into(key: Key, seed: number, out: Uint32Array): void {
  if (seed >>> 0 !== seed) {
    throw new InvalidArgumentError(`murmur3x86_128: seed must be an integer in [0, 2^32 - 1], got ${seed}`);
  }
  if (typeof key === 'string') {
    if (!hashAsciiString(key, seed, out)) {
      const utf8 = encodeUtf8(key);
      hashBytes(utf8.bytes, utf8.length, seed, out);
    }
  } else {
    assertKey(key, 'murmur3x86_128');
    hashBytes(key, key.length, seed, out);
  }
}

/** Hashes the first `length` bytes of `bytes`. */
function hashBytes(bytes: Uint8Array, length: number, seed: number, out: Uint32Array): void {
  let h1 = seed;
  let h2 = seed;
  let h3 = seed;
  let h4 = seed;
  const blockEnd = length - (length & 15);
  for (let i = 0; i < blockEnd; i += 16) {
    let k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    let k2 = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    let k3 = bytes[i + 8]! | (bytes[i + 9]! << 8) | (bytes[i + 10]! << 16) | (bytes[i + 11]! << 24);
    let k4 = bytes[i + 12]! | (bytes[i + 13]! << 8) | (bytes[i + 14]! << 16) | (bytes[i + 15]! << 24);

    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (Math.imul(h1 + h2, 5) + 0x561ccd1b) | 0;

    k2 = Math.imul(k2, C2);
    k2 = (k2 << 16) | (k2 >>> 16);
    h2 ^= Math.imul(k2, C3);
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (Math.imul(h2 + h3, 5) + 0x0bcaa747) | 0;

    k3 = Math.imul(k3, C3);
    k3 = (k3 << 17) | (k3 >>> 15);
    h3 ^= Math.imul(k3, C4);
    h3 = (h3 << 15) | (h3 >>> 17);
    h3 = (Math.imul(h3 + h4, 5) + 0x96cd1c35) | 0;

    k4 = Math.imul(k4, C4);
    k4 = (k4 << 18) | (k4 >>> 14);
    h4 ^= Math.imul(k4, C1);
    h4 = (h4 << 13) | (h4 >>> 19);
    h4 = (Math.imul(h4 + h1, 5) + 0x32ac3b17) | 0;
  }
  // The tail: up to 15 bytes, little-endian into k1..k4 (bytes past the end stay zero).
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let k4 = 0;
  for (let i = length - 1; i >= blockEnd; i--) {
    const b = bytes[i]!;
    const shift = ((i - blockEnd) & 3) << 3;
    const word = (i - blockEnd) >> 2;
    if (word === 0) k1 |= b << shift;
    else if (word === 1) k2 |= b << shift;
    else if (word === 2) k3 |= b << shift;
    else k4 |= b << shift;
  }
  finish(h1, h2, h3, h4, k1, k2, k3, k4, length, out);
}

/**
 * Hashes an ASCII string straight from its char codes (each is its own UTF-8 byte). Returns false, having written
 * nothing, as soon as it meets a char code >= 0x80: the caller then hashes the UTF-8 encoding instead.
 */
function hashAsciiString(key: string, seed: number, out: Uint32Array): boolean {
  const length = key.length;
  let h1 = seed;
  let h2 = seed;
  let h3 = seed;
  let h4 = seed;
  const blockEnd = length - (length & 15);
  for (let i = 0; i < blockEnd; i += 16) {
    const a0 = key.charCodeAt(i);
    const a1 = key.charCodeAt(i + 1);
    const a2 = key.charCodeAt(i + 2);
    const a3 = key.charCodeAt(i + 3);
    const b0 = key.charCodeAt(i + 4);
    const b1 = key.charCodeAt(i + 5);
    const b2 = key.charCodeAt(i + 6);
    const b3 = key.charCodeAt(i + 7);
    const c0 = key.charCodeAt(i + 8);
    const c1 = key.charCodeAt(i + 9);
    const c2 = key.charCodeAt(i + 10);
    const c3 = key.charCodeAt(i + 11);
    const d0 = key.charCodeAt(i + 12);
    const d1 = key.charCodeAt(i + 13);
    const d2 = key.charCodeAt(i + 14);
    const d3 = key.charCodeAt(i + 15);
    // A char code >= 0x80 is not its own UTF-8 byte: leave this string to the encoding path.
    if ((a0 | a1 | a2 | a3 | b0 | b1 | b2 | b3 | c0 | c1 | c2 | c3 | d0 | d1 | d2 | d3) >= 0x80) return false;
    let k1 = a0 | (a1 << 8) | (a2 << 16) | (a3 << 24);
    let k2 = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24);
    let k3 = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
    let k4 = d0 | (d1 << 8) | (d2 << 16) | (d3 << 24);

    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    h1 ^= Math.imul(k1, C2);
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (Math.imul(h1 + h2, 5) + 0x561ccd1b) | 0;

    k2 = Math.imul(k2, C2);
    k2 = (k2 << 16) | (k2 >>> 16);
    h2 ^= Math.imul(k2, C3);
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (Math.imul(h2 + h3, 5) + 0x0bcaa747) | 0;

    k3 = Math.imul(k3, C3);
    k3 = (k3 << 17) | (k3 >>> 15);
    h3 ^= Math.imul(k3, C4);
    h3 = (h3 << 15) | (h3 >>> 17);
    h3 = (Math.imul(h3 + h4, 5) + 0x96cd1c35) | 0;

    k4 = Math.imul(k4, C4);
    k4 = (k4 << 18) | (k4 >>> 14);
    h4 ^= Math.imul(k4, C1);
    h4 = (h4 << 13) | (h4 >>> 19);
    h4 = (Math.imul(h4 + h1, 5) + 0x32ac3b17) | 0;
  }
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let k4 = 0;
  for (let i = length - 1; i >= blockEnd; i--) {
    const b = key.charCodeAt(i);
    if (b >= 0x80) return false;
    const shift = ((i - blockEnd) & 3) << 3;
    const word = (i - blockEnd) >> 2;
    if (word === 0) k1 |= b << shift;
    else if (word === 1) k2 |= b << shift;
    else if (word === 2) k3 |= b << shift;
    else k4 |= b << shift;
  }
  finish(h1, h2, h3, h4, k1, k2, k3, k4, length, out);
  return true;
}

/**
 * Mixes the tail words and finalizes. Mixing a zero tail word changes nothing (0 * c = 0, rotl(0) = 0, h ^ 0 = h),
 * so the four words are mixed unconditionally; that equals the reference's length switch.
 */
function finish(
  h1: number,
  h2: number,
  h3: number,
  h4: number,
  k1: number,
  k2: number,
  k3: number,
  k4: number,
  length: number,
  out: Uint32Array,
): void {
  k4 = Math.imul(k4, C4);
  k4 = (k4 << 18) | (k4 >>> 14);
  h4 ^= Math.imul(k4, C1);
  k3 = Math.imul(k3, C3);
  k3 = (k3 << 17) | (k3 >>> 15);
  h3 ^= Math.imul(k3, C4);
  k2 = Math.imul(k2, C2);
  k2 = (k2 << 16) | (k2 >>> 16);
  h2 ^= Math.imul(k2, C3);
  k1 = Math.imul(k1, C1);
  k1 = (k1 << 15) | (k1 >>> 17);
  h1 ^= Math.imul(k1, C2);

  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix32(h1);
  h2 = fmix32(h2);
  h3 = fmix32(h3);
  h4 = fmix32(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[0] = h1;
  out[1] = h2;
  out[2] = h3;
  out[3] = h4;
}

/** The 32-bit finalization mix: forces every bit of h to avalanche. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
