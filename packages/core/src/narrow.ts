import { fmix32 } from './murmur3.js';

/**
 * The narrow path's arithmetic (docs/FORMAT.md §5, ranges up to 2^32): the reduction of a 32-bit word into a
 * range and the block a key picks. positions.ts states the whole scheme; the loops of kernel/slot-loops.ts and the
 * batch kernels use these, so that each of them reduces exactly as the reference does.
 */

/** 2^-32: multiplying by it is exact and avoids a division. */
export const INV_32: number = 1 / 4294967296;

/** The largest range the narrow (32-bit) path serves. */
export const NARROW_LIMIT: number = 2 ** 32;

/**
 * The block a key's positions fall in, for a blocked geometry: ⌊fmix32(h1 ^ h2 ^ h3 ^ h4) × (blocks × 2^-32)⌋,
 * the narrow reduction of a word the offsets do not use as such (fmix32 avalanches it, so which block a key
 * picks is independent of where in the block its bits fall). `blockScale` is blocks × 2^-32.
 */
export function blockOf(h1: number, h2: number, h3: number, h4: number, blockScale: number): number {
  return reduceNarrow(fmix32(h1 ^ h2 ^ h3 ^ h4) >>> 0, blockScale);
}

/**
 * The narrow reduction: ⌊u × σ⌋ with σ = range × 2^-32, both products IEEE 754 binary64 rounded to nearest (σ is
 * exact: a scaling by a power of two). It is Lemire's ⌊u·range/2^32⌋ up to the rounding of one product: the two
 * differ, by one, only when u·range/2^32 lies within 2^-21 below an integer (a fraction ~2^-20 of all u), and the
 * result is always in [0, range) — for range ≤ 2^11 the product is exact, and above it the largest u stays more than
 * 2^-21 below range. One multiply and one floor per position: the exact two-product form cost 7–8 ns more per
 * probed position (measured on a 1 MiB filter, ~2 probes per absent key). Every IEEE 754 language reproduces it bit
 * for bit (docs/FORMAT.md §5: `floor((double)u * ((double)range * 0x1p-32))`, no fused multiply-add).
 */
export function reduceNarrow(u: number, scale: number): number {
  return Math.floor(u * scale);
}

/** σ = range × 2^-32, the narrow reduction's multiplier. */
export function narrowScale(range: number): number {
  return range * INV_32;
}
