import type { Layout } from '../layout.js';
import { partitionedFalsePositiveRate } from '../params.js';
import { type Geometry, MAX_BITS } from '../positions.js';

/**
 * The partitioned layout (Almeida et al., "Scalable Bloom Filters", IPL 2007, §3): m = k·s slots in k slices of s;
 * position i lies in slice i. Geometry (range s, stride s). Rate p = (1 − (1 − 1/s)^n)^k, a little above the
 * standard layout's for the same m; estimated count ln(1 − X/m) / ln(1 − 1/s), since every key sets one slot per
 * slice. Every slice fills at the same pace, which is what the scalable filter relies on.
 */
export const partitionedLayout: Layout = {
  name: 'partitioned',
  bitsUnit: (hashes: number) => hashes,
  /**
   * The rate's own inverse: (1 − (1 − 1/s)^n)^k ≤ p exactly when s ≥ 1 / −expm1(log1p(−p^{1/k}) / n), and m = k·s;
   * 0.1% less, for rounding, bounds the least m from below (tested against the full search).
   */
  bitsAtLeast: (keys: number, fpr: number, hashes: number) =>
    (0.999 * hashes) / -Math.expm1(Math.log1p(-(fpr ** (1 / hashes))) / keys),
  geometry(bits: number, hashes: number): Geometry {
    const slice = bits / hashes;
    return { range: slice, stride: slice };
  },
  falsePositiveRate: partitionedFalsePositiveRate,
  estimateCount(set: number, bits: number, hashes: number): number {
    if (set === 0) return 0;
    if (set >= bits) return Number.POSITIVE_INFINITY;
    return Math.log1p(-set / bits) / Math.log1p(-hashes / bits);
  },
  maxBits: MAX_BITS,
};
