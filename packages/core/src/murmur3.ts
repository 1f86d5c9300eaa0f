import { InvalidArgumentError } from './errors.js';
import { assertKey, type Key } from './key.js';
import { encodeUtf8 } from './utf8.js';

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

/** The algorithm's four multiplication constants (smhasher's c1..c4). */
export const C1 = 0x239b961b;
export const C2 = 0xab0e9789;
export const C3 = 0x38b34ae5;
export const C4 = 0xa1e38b93;

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
  hashInto(key, seed, scratch, 'murmur3x86_128');
  out[0] = scratch[0]!;
  out[1] = scratch[1]!;
  out[2] = scratch[2]!;
  out[3] = scratch[3]!;
}

const scratch = new Int32Array(4);

/**
 * The filters' hot path: {@link murmur3x86_128Into} for a seed the caller has already validated, into an
 * Int32Array (h1..h4 as signed words: what 32-bit integer arithmetic reads fastest). A value that is
 * neither a string nor a Uint8Array gets an InvalidArgumentError naming `where` (never a silent `String(key)`).
 */
export function hashInto(key: unknown, seed: number, out: Int32Array, where: string, at = 0): void {
  if (typeof key === 'string') {
    if (!hashAsciiString(key, seed, out, at)) {
      const utf8 = encodeUtf8(key);
      hashBytes(utf8.bytes, 0, utf8.length, seed, out, at);
    }
  } else if (key instanceof Uint8Array) {
    hashBytes(key, 0, key.length, seed, out, at);
  } else {
    assertKey(key, where);
  }
}

/**
 * The hash of the key `bytes[start, end)`, where it lies (a line in a read buffer: no copy, no view), into
 * `out[at .. at + 3]`, as {@link hashInto} writes it for the same bytes as a key. For callers that checked the range
 * and the seed (0 ≤ start ≤ end ≤ bytes.length, seed an unsigned 32-bit integer): nothing is checked here.
 */
export function hashRangeInto(
  bytes: Uint8Array,
  start: number,
  end: number,
  seed: number,
  out: Int32Array,
  at = 0,
): void {
  hashBytes(bytes, start, end, seed, out, at);
}

/** Hashes the bytes [start, end) of `bytes`. */
function hashBytes(
  bytes: Uint8Array,
  start: number,
  end: number,
  seed: number,
  out: Int32Array,
  at: number,
): void {
  const length = end - start;
  let h1 = seed;
  let h2 = seed;
  let h3 = seed;
  let h4 = seed;
  const blockEnd = end - (length & 15);
  for (let i = start; i < blockEnd; i += 16) {
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
  // The tail: up to 15 bytes, little-endian into k1..k4 (bytes past the end stay zero), as the reference's switch.
  const i = blockEnd;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let k4 = 0;
  switch (length & 15) {
    case 15:
      k4 |= bytes[i + 14]! << 16;
    case 14:
      k4 |= bytes[i + 13]! << 8;
    case 13:
      k4 |= bytes[i + 12]!;
    case 12:
      k3 |= bytes[i + 11]! << 24;
    case 11:
      k3 |= bytes[i + 10]! << 16;
    case 10:
      k3 |= bytes[i + 9]! << 8;
    case 9:
      k3 |= bytes[i + 8]!;
    case 8:
      k2 |= bytes[i + 7]! << 24;
    case 7:
      k2 |= bytes[i + 6]! << 16;
    case 6:
      k2 |= bytes[i + 5]! << 8;
    case 5:
      k2 |= bytes[i + 4]!;
    case 4:
      k1 |= bytes[i + 3]! << 24;
    case 3:
      k1 |= bytes[i + 2]! << 16;
    case 2:
      k1 |= bytes[i + 1]! << 8;
    case 1:
      k1 |= bytes[i + 0]!;
  }
  finish(h1, h2, h3, h4, k1, k2, k3, k4, length, out, at);
}

/**
 * Hashes an ASCII string straight from its char codes (each is its own UTF-8 byte). Returns false, having written
 * nothing, as soon as it meets a char code >= 0x80: the caller then hashes the UTF-8 encoding instead.
 */
function hashAsciiString(key: string, seed: number, out: Int32Array, at: number): boolean {
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
  // The tail, as the reference's switch (each case falls through to the next); `high` collects every char code
  // to refuse a non-ASCII one at the end.
  const i = blockEnd;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let k4 = 0;
  let high = 0;
  let c = 0;
  switch (length & 15) {
    case 15:
      c = key.charCodeAt(i + 14);
      high |= c;
      k4 |= c << 16;
    case 14:
      c = key.charCodeAt(i + 13);
      high |= c;
      k4 |= c << 8;
    case 13:
      c = key.charCodeAt(i + 12);
      high |= c;
      k4 |= c;
    case 12:
      c = key.charCodeAt(i + 11);
      high |= c;
      k3 |= c << 24;
    case 11:
      c = key.charCodeAt(i + 10);
      high |= c;
      k3 |= c << 16;
    case 10:
      c = key.charCodeAt(i + 9);
      high |= c;
      k3 |= c << 8;
    case 9:
      c = key.charCodeAt(i + 8);
      high |= c;
      k3 |= c;
    case 8:
      c = key.charCodeAt(i + 7);
      high |= c;
      k2 |= c << 24;
    case 7:
      c = key.charCodeAt(i + 6);
      high |= c;
      k2 |= c << 16;
    case 6:
      c = key.charCodeAt(i + 5);
      high |= c;
      k2 |= c << 8;
    case 5:
      c = key.charCodeAt(i + 4);
      high |= c;
      k2 |= c;
    case 4:
      c = key.charCodeAt(i + 3);
      high |= c;
      k1 |= c << 24;
    case 3:
      c = key.charCodeAt(i + 2);
      high |= c;
      k1 |= c << 16;
    case 2:
      c = key.charCodeAt(i + 1);
      high |= c;
      k1 |= c << 8;
    case 1:
      c = key.charCodeAt(i + 0);
      high |= c;
      k1 |= c;
  }
  if (high >= 0x80) return false;
  // The finalization, inline: V8 does not inline a ten-argument call here, and the call cost 15–20% of the hash
  // of a 45-character key (measured on 10^6 URL keys). hashBytes shares it through finish().
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
  out[at] = h1;
  out[at + 1] = h2;
  out[at + 2] = h3;
  out[at + 3] = h4;
  return true;
}

/**
 * Mixes the tail words and finalizes (shared with the streaming hasher in murmur3-stream.ts). Mixing a zero tail word changes nothing (0 * c = 0, rotl(0) = 0, h ^ 0 = h),
 * so the four words are mixed unconditionally; that equals the reference's length switch.
 */
export function finish(
  h1: number,
  h2: number,
  h3: number,
  h4: number,
  k1: number,
  k2: number,
  k3: number,
  k4: number,
  length: number,
  out: Int32Array,
  at: number,
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
  out[at] = h1;
  out[at + 1] = h2;
  out[at + 2] = h3;
  out[at + 3] = h4;
}

/** MurmurHash3's 32-bit finalization mix (smhasher): forces every bit of h to avalanche. Returns a signed int32. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
