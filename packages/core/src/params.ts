import { InvalidArgumentError } from './errors.js';
import { MAX_BITS } from './positions.js';
import { checkInteger, checkOpenInterval } from './validate.js';

/**
 * Parameter math for Bloom filters: n keys, m bits, k hash functions, false-positive rate p.
 *
 * Sources: Bloom, "Space/Time Trade-offs in Hash Coding with Allowable Errors", CACM 1970; Broder & Mitzenmacher,
 * "Network Applications of Bloom Filters: A Survey", Internet Mathematics 2004, §2.1 (the formulas below and the
 * optimum k = (m/n)·ln 2); Almeida et al., "Scalable Bloom Filters", IPL 2007, §3 (the partitioned layout).
 *
 * All results are for k independent, uniform hash positions; bloomkit's cubic position scheme matches them to
 * within the statistical tests' confidence bounds (see the filters' fpr tests).
 */

/** The largest number of hash functions a filter may use. At k = 64 the optimum p is ~5·10^-20. */
export const MAX_HASHES = 64;

const LN2 = Math.LN2;
const LN2_SQUARED = LN2 * LN2;

/**
 * Bits for n keys at rate p with the optimal (real-valued) k: m = −n·ln p / (ln 2)², rounded up.
 * About 9.59 bits per key at p = 0.01 and 14.38 at p = 0.001.
 */
export function optimalBits(n: number, p: number): number {
  checkInteger('optimalBits', 'n', n, 1, Number.MAX_SAFE_INTEGER);
  checkOpenInterval('optimalBits', 'p', p, 0, 1);
  return Math.ceil((-n * Math.log(p)) / LN2_SQUARED);
}

/** The k that minimizes the rate for m bits and n keys: (m/n)·ln 2, rounded to the nearest integer in [1, 64]. */
export function optimalHashes(m: number, n: number): number {
  checkInteger('optimalHashes', 'm', m, 1, MAX_BITS);
  checkInteger('optimalHashes', 'n', n, 1, Number.MAX_SAFE_INTEGER);
  return Math.min(MAX_HASHES, Math.max(1, Math.round((m / n) * LN2)));
}

/**
 * The expected false-positive rate of a standard filter with m bits and k hashes after n distinct insertions:
 * p = (1 − (1 − 1/m)^{kn})^k. Evaluated as (−expm1(kn·log1p(−1/m)))^k, which keeps full precision when 1/m is
 * tiny (m up to 2^48) and when p is far below 10^-16.
 */
export function falsePositiveRate(m: number, n: number, k: number): number {
  if (n <= 0) return 0;
  if (m === 1) return 1;
  return (-Math.expm1(k * n * Math.log1p(-1 / m))) ** k;
}

/**
 * The expected false-positive rate of a partitioned filter: k slices of s = ⌈m/k⌉ bits, one position per slice.
 * p = (1 − (1 − 1/s)^n)^k (Almeida et al. 2007, §3). Slightly above the standard layout's rate for the same m.
 */
export function partitionedFalsePositiveRate(m: number, n: number, k: number): number {
  if (n <= 0) return 0;
  const s = Math.ceil(m / k);
  if (s === 1) return 1;
  return (-Math.expm1(n * Math.log1p(-1 / s))) ** k;
}

/** Which formula applies: the standard layout or the partitioned one. */
export type Layout = 'standard' | 'partitioned';

/** The rate formula for a layout. */
export function layoutFalsePositiveRate(layout: Layout, m: number, n: number, k: number): number {
  return layout === 'standard' ? falsePositiveRate(m, n, k) : partitionedFalsePositiveRate(m, n, k);
}

/**
 * The largest n for which a filter of m bits and k hashes keeps its expected rate at or below p.
 * Solves (1 − (1 − 1/m)^{kn})^k ≤ p for n: n ≤ ln(1 − p^{1/k}) / (k·ln(1 − 1/m)), then checks the neighbours so
 * that rounding can never report one key too many.
 */
export function capacityFor(m: number, k: number, p: number, layout: Layout = 'standard'): number {
  checkInteger('capacityFor', 'm', m, 1, MAX_BITS);
  checkInteger('capacityFor', 'k', k, 1, MAX_HASHES);
  checkOpenInterval('capacityFor', 'p', p, 0, 1);
  const perSlot = layout === 'standard' ? { slots: m, draws: k } : { slots: Math.ceil(m / k), draws: 1 };
  if (perSlot.slots === 1) return 0;
  const estimate = Math.log1p(-(p ** (1 / k))) / (perSlot.draws * Math.log1p(-1 / perSlot.slots));
  let n = Math.max(0, Math.floor(estimate));
  while (n > 0 && layoutFalsePositiveRate(layout, m, n, k) > p) n--;
  while (layoutFalsePositiveRate(layout, m, n + 1, k) <= p) n++;
  return n;
}

/** Sizes chosen for a filter. */
export interface FilterShape {
  /** m: bits (for the partitioned layout, a multiple of k). */
  readonly bits: number;
  /** k: hash functions. */
  readonly hashes: number;
  /** The predicted rate at capacity: always ≤ the requested p. */
  readonly predictedFpr: number;
}

/**
 * The smallest m (and its best k) whose predicted rate at n keys is at most p — at most, not merely close: the
 * real-valued optimum m = −n·ln p/(ln 2)² with k rounded would overshoot p by up to a few percent.
 *
 * For every k in [1, 64] (the best k is near log2(1/p) for large n, but not for a handful of keys), binary-searches
 * the least m (standard) or slice size s (partitioned, m = k·s) meeting p, and keeps the smallest m. About 3,000
 * evaluations of the formula: microseconds. Throws when no m ≤ 2^48 suffices.
 */
export function chooseShape(
  n: number,
  p: number,
  layout: Layout = 'standard',
  where = 'chooseShape',
): FilterShape {
  checkInteger(where, 'capacity', n, 1, Number.MAX_SAFE_INTEGER);
  checkOpenInterval(where, 'fpr', p, 0, 1);
  let best: FilterShape | undefined;
  for (let k = 1; k <= MAX_HASHES; k++) {
    const unit = layout === 'standard' ? 1 : k;
    const fits = (units: number) => layoutFalsePositiveRate(layout, units * unit, n, k) <= p;
    let hi = Math.max(1, Math.ceil(optimalBits(n, p) / unit));
    const maxUnits = Math.floor(MAX_BITS / unit);
    while (!fits(hi) && hi < maxUnits) hi = Math.min(maxUnits, hi * 2);
    if (!fits(hi)) continue;
    let lo = Math.max(0, Math.floor(hi / 4));
    if (fits(lo) && lo > 0) lo = 0;
    // Invariant: fits(hi), and lo === 0 or !fits(lo).
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (fits(mid)) hi = mid;
      else lo = mid;
    }
    const bits = hi * unit;
    if (best === undefined || bits < best.bits) {
      best = { bits, hashes: k, predictedFpr: layoutFalsePositiveRate(layout, bits, n, k) };
    }
  }
  if (best === undefined) {
    throw new InvalidArgumentError(
      `${where}: capacity ${n} at fpr ${p} needs more than 2^48 bits; use a larger fpr or a smaller capacity`,
    );
  }
  return best;
}

/**
 * The number of distinct keys that most likely set `set` of `m` positions (Swamidass & Baldi, "Mathematical
 * correction for fingerprint similarity measures", J. Chem. Inf. Model. 2007, eq. 5, in its exact form):
 * n ≈ ln(1 − X/m) / (k·ln(1 − 1/m)) for the standard layout, and ln(1 − X/m) / ln(1 − 1/s) for the partitioned
 * one (each key sets one position in each slice of s = m/k). Infinity when every position is set.
 */
export function estimateCount(set: number, m: number, k: number, layout: Layout = 'standard'): number {
  if (set === 0) return 0;
  if (set >= m) return Number.POSITIVE_INFINITY;
  const slots = layout === 'partitioned' ? m / k : m;
  const draws = layout === 'partitioned' ? 1 : k;
  return Math.log1p(-set / m) / (draws * Math.log1p(-1 / slots));
}
