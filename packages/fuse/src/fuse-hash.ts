import type { FuseLayout } from './fuse-layout.js';
import { add64, fmix64, mulHigh64By32, mul64 as mulInto, OUT } from './u64.js';

/**
 * A key's hash and its three slots (docs/FORMAT.md §3.8), as the reference computes them in `binary_fuse8_contain`
 * and `binary_fuse8_hash`: with the filter's 64-bit seed S, hash = fmix64(key + S) (mod 2^64), and
 *
 *   h0 = ⌊hash × segmentCountLength / 2^64⌋
 *   h1 = (h0 + segmentLength) XOR ((hash >> 18) AND segmentLengthMask)
 *   h2 = (h0 + 2 × segmentLength) XOR (hash AND segmentLengthMask)
 *
 * and the fingerprint is the low 8 (or 16) bits of hash XOR (hash >> 32). A key is present when its fingerprint
 * XOR the three slots' fingerprints is 0.
 */

/** The mixed hash of a 64-bit key (high:low) under the seed (high:low), into OUT (int32 words). */
export function mixKey(keyHigh: number, keyLow: number, seedHigh: number, seedLow: number): void {
  add64(keyHigh, keyLow, seedHigh, seedLow);
  fmix64(OUT[0]!, OUT[1]!);
}

/**
 * The three slots of a mixed hash (high:low, int32 words) into `out[0..2]`; each below 2^31. The first slot's
 * 64×32 high product is taken once.
 */
export function slotsOf(layout: FuseLayout, high: number, low: number, out: Uint32Array): void {
  const first = mulHigh64By32(high, low, layout.segmentCountLength);
  const mask = layout.segmentLengthMask;
  out[0] = first;
  // (hash & (2^36 − 1)) >> 18, masked: bits 18..35 of the hash.
  out[1] = (first + layout.segmentLength) ^ ((((high & 0xf) << 14) | (low >>> 18)) & mask);
  out[2] = (first + 2 * layout.segmentLength) ^ (low & mask);
}

/** The reference's seed sequence: splitmix64 over a counter starting at 0x726b2b9d438b9d4d. */
export class SplitMix64 {
  private high = 0x726b2b9d;
  private low = 0x438b9d4d;

  /** The next value, into OUT. */
  next(): void {
    add64(this.high, this.low, 0x9e3779b9 | 0, 0x7f4a7c15);
    this.high = OUT[0]!;
    this.low = OUT[1]!;
    let h = this.high;
    let l = this.low;
    // z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
    l ^= (l >>> 30) | (h << 2);
    h ^= h >>> 30;
    mulInto(h, l, 0xbf58476d | 0, 0x1ce4e5b9);
    h = OUT[0]!;
    l = OUT[1]!;
    // z = (z ^ (z >> 27)) * 0x94d049bb133111eb
    l ^= (l >>> 27) | (h << 5);
    h ^= h >>> 27;
    mulInto(h, l, 0x94d049bb | 0, 0x133111eb);
    h = OUT[0]!;
    l = OUT[1]!;
    // z ^ (z >> 31)
    OUT[1] = l ^ ((l >>> 31) | (h << 1));
    OUT[0] = h ^ (h >>> 31);
  }
}
