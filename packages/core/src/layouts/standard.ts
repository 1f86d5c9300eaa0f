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
  geometry: (bits: number): Geometry => ({ range: bits, stride: 0 }),
  falsePositiveRate,
  estimateCount(set: number, bits: number, hashes: number): number {
    if (set === 0) return 0;
    if (set >= bits) return Number.POSITIVE_INFINITY;
    return Math.log1p(-set / bits) / (hashes * Math.log1p(-1 / bits));
  },
  maxBits: MAX_BITS,
};
