import { C1, C2, C3, C4, finish } from './murmur3.js';

/**
 * MurmurHash3 x86_128 of a key given in pieces: the same four words as hashing the concatenation of every piece
 * at once (`hashInto`), for a key too long to hold in memory (the CLI's `dedup` of a line of any length). The
 * algorithm is a block hash: 16-byte blocks are mixed in order and only the last 0–15 bytes and the total length
 * enter the finalization, so the state between pieces is four words, a 16-byte tail and a length.
 *
 * The block mixing is the same as murmur3.ts's `hashBytes`, which keeps its own inlined copy because it is the hot
 * path of every add; a test holds the two equal on every split of random keys.
 */
export class Murmur3Stream {
  private h1 = 0;
  private h2 = 0;
  private h3 = 0;
  private h4 = 0;
  private readonly tail = new Uint8Array(16);
  private tailLength = 0;
  private length = 0;

  /** Starts a new key hashed with `seed`. */
  reset(seed: number): void {
    this.h1 = this.h2 = this.h3 = this.h4 = seed | 0;
    this.tailLength = 0;
    this.length = 0;
  }

  /** Hashes `bytes[start, end)` as the next piece of the key. */
  update(bytes: Uint8Array, start: number, end: number): void {
    this.length += end - start;
    let at = start;
    if (this.tailLength > 0) {
      while (this.tailLength < 16 && at < end) this.tail[this.tailLength++] = bytes[at++]!;
      if (this.tailLength < 16) return;
      this.mix(this.tail, 0);
      this.tailLength = 0;
    }
    for (; at + 16 <= end; at += 16) this.mix(bytes, at);
    while (at < end) this.tail[this.tailLength++] = bytes[at++]!;
  }

  /** Writes h1..h4 of the whole key into `out[at..at+3]` (as `hashInto` does). The stream must be reset to reuse. */
  digestInto(out: Int32Array, at = 0): void {
    const tail = this.tail;
    tail.fill(0, this.tailLength);
    const word = (i: number) => tail[i]! | (tail[i + 1]! << 8) | (tail[i + 2]! << 16) | (tail[i + 3]! << 24);
    finish(this.h1, this.h2, this.h3, this.h4, word(0), word(4), word(8), word(12), this.length, out, at);
  }

  /** Mixes the 16-byte block at `bytes[i]` into the state. */
  private mix(bytes: Uint8Array, i: number): void {
    let { h1, h2, h3, h4 } = this;
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
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    this.h4 = h4;
  }
}
