import type { Layout } from '../layout.js';
import { falsePositiveRate } from '../params.js';
import { type Geometry, MAX_BITS } from '../positions.js';

/**
 * The classic layout (Bloom, CACM 1970): each of a key's k positions anywhere in [0, m). Geometry (range m,
 * stride 0). Rate p = (1 − (1 − 1/m)^{kn})^k (Broder & Mitzenmacher 2004, §2.1); estimated count
 * ln(1 − X/m) / (k·ln(1 − 1/m)) for X slots set.
 */
export const standardLayout: Layout = {
  name: 'standard',
  bitsUnit: () => 1,
  /**
   * The rate's own inverse: (1 − (1 − 1/m)^{kn})^k ≤ p exactly when m ≥ 1 / −expm1(log1p(−p^{1/k}) / (kn)); 0.1%
   * less, for the rounding of both sides, bounds the least m from below (tested against the full search), so
   * `chooseShape` searches the best k or two instead of all 64.
   */
  bitsAtLeast: (keys: number, fpr: number, hashes: number) =>
    0.999 / -Math.expm1(Math.log1p(-(fpr ** (1 / hashes))) / (hashes * keys)),
  geometry: (bits: number): Geometry => ({ range: bits, stride: 0 }),
  falsePositiveRate,
  estimateCount(set: number, bits: number, hashes: number): number {
    if (set === 0) return 0;
    if (set >= bits) return Number.POSITIVE_INFINITY;
    return Math.log1p(-set / bits) / (hashes * Math.log1p(-1 / bits));
  },
  maxBits: MAX_BITS,
};
