import type { Layout } from '../layout.js';
import { BLOCK_BITS, blockedFalsePositiveRate } from '../params.js';
import type { Geometry } from '../positions.js';

/** The largest blocked filter: 2^32 blocks of 512 bits (2^41 bits, 256 GiB), so a block index is a 32-bit word. */
export const MAX_BLOCKED_BITS: number = 2 ** 32 * BLOCK_BITS;

/**
 * The blocked layout (RocksDB's FastLocalBloom; Putze, Sanders & Singler 2009): m bits in blocks of B = 512 bits,
 * one 64-byte cache line; each key picks one block and sets its k positions inside it, so a lookup touches one
 * cache line instead of k. Geometry (range B, stride 0, blocks m/B). Rate: {@link blockedFalsePositiveRate}, above
 * the standard layout's for the same m because blocks fill unevenly. Estimated count: inverting the expected fill
 * 1 − X/m = exp(−λ·(1 − (1 − 1/B)^k)) with λ = n·B/m keys per block.
 */
export const blockedLayout: Layout = {
  name: 'blocked',
  bitsUnit: () => BLOCK_BITS,
  /**
   * Blocks fill unevenly (Poisson), so a blocked filter needs more bits than a standard one for the same n, k and p
   * (Putze, Sanders & Singler 2009, §3): the standard layout's least m, −k·n / ln(1 − p^(1/k)), less 2% for the
   * standard formula's own rounding, bounds it from below. Tested against the full search over a grid of n, p.
   */
  bitsAtLeast: (keys: number, fpr: number, hashes: number) =>
    (0.98 * -hashes * keys) / Math.log1p(-(fpr ** (1 / hashes))),
  geometry: (bits: number): Geometry => ({ range: BLOCK_BITS, stride: 0, blocks: bits / BLOCK_BITS }),
  falsePositiveRate: (bits: number, keys: number, hashes: number) =>
    blockedFalsePositiveRate(bits, keys, hashes, BLOCK_BITS),
  estimateCount(set: number, bits: number, hashes: number): number {
    if (set === 0) return 0;
    if (set >= bits) return Number.POSITIVE_INFINITY;
    const perBlock = -Math.log1p(-set / bits) / -Math.expm1(hashes * Math.log1p(-1 / BLOCK_BITS));
    return (perBlock * bits) / BLOCK_BITS;
  },
  maxBits: MAX_BLOCKED_BITS,
};
