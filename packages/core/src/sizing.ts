import { InvalidArgumentError } from './errors.js';
import type { Layout } from './layout.js';
import { standardLayout } from './layouts/standard.js';
import { MAX_HASHES, optimalBits } from './params.js';
import { MAX_BITS } from './positions.js';
import { checkInteger, checkOpenInterval } from './validate.js';

/** Sizes chosen for a filter. */
export interface FilterShape {
  /** m: slots (a multiple of the layout's unit for k). */
  readonly bits: number;
  /** k: positions per key. */
  readonly hashes: number;
  /** The predicted rate at capacity: always ≤ the requested p. */
  readonly predictedFpr: number;
}

/**
 * The smallest m (and its best k) whose predicted rate at n keys is at most p under `layout`'s formula — at most,
 * not merely close: the real-valued optimum m = −n·ln p/(ln 2)² with k rounded overshoots p by up to a few percent.
 *
 * For every k in [1, 64] (the best k is near log2(1/p) for large n, but not for a handful of keys), binary-searches
 * the least number of units (m = units · layout.bitsUnit(k)) meeting p, and keeps the smallest m. About 3,000
 * evaluations of the formula: microseconds. Every bound is an integer far below 2^53, so the search always ends.
 * Throws InvalidArgumentError when no m ≤ `maxBits` (default 2^48) suffices.
 */
export function chooseShape(
  n: number,
  p: number,
  layout: Layout = standardLayout,
  where = 'chooseShape',
  maxBits: number = layout.maxBits,
): FilterShape {
  checkInteger(where, 'capacity', n, 1, Number.MAX_SAFE_INTEGER);
  checkOpenInterval(where, 'fpr', p, 0, 1);
  let best: FilterShape | undefined;
  // The k most likely to win first, so that a layout's lower bound (blocked: its formula costs a Poisson sum) rules
  // out the rest without searching them; ties keep the smallest k, as an ascending search would.
  const order = hashOrder(n, p, layout);
  for (const k of order) {
    if (best !== undefined && layout.bitsAtLeast !== undefined && layout.bitsAtLeast(n, p, k) > best.bits)
      continue;
    const unit = layout.bitsUnit(k);
    const maxUnits = Math.floor(maxBits / unit);
    if (maxUnits < 1) continue;
    const fits = (units: number) => layout.falsePositiveRate(units * unit, n, k) <= p;
    let hi = Math.min(maxUnits, Math.max(1, Math.ceil(Math.min(optimalBits(n, p), maxBits) / unit)));
    while (!fits(hi) && hi < maxUnits) hi = Math.min(maxUnits, hi * 2);
    if (!fits(hi)) continue;
    let lo = Math.max(0, Math.floor(hi / 4));
    if (lo > 0 && fits(lo)) lo = 0;
    // Invariant: fits(hi), and lo === 0 or !fits(lo).
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (fits(mid)) hi = mid;
      else lo = mid;
    }
    const bits = hi * unit;
    if (best === undefined || bits < best.bits || (bits === best.bits && k < best.hashes)) {
      best = { bits, hashes: k, predictedFpr: layout.falsePositiveRate(bits, n, k) };
    }
  }
  if (best === undefined) {
    throw new InvalidArgumentError(
      `${where}: capacity ${n} at fpr ${p} needs more than ${maxBits === MAX_BITS ? '2^48' : maxBits} bits; use a larger fpr or a smaller capacity`,
    );
  }
  return best;
}

/**
 * The largest n for which a filter of m slots and k positions keeps its expected rate at or below p under
 * `layout`'s formula (a binary search over n; the rate grows with n).
 */
export function capacityFor(m: number, k: number, p: number, layout: Layout = standardLayout): number {
  checkInteger('capacityFor', 'm', m, 1, MAX_BITS);
  checkInteger('capacityFor', 'k', k, 1, MAX_HASHES);
  checkOpenInterval('capacityFor', 'p', p, 0, 1);
  if (layout.falsePositiveRate(m, 1, k) > p) return 0;
  let lo = 1;
  let hi = 2;
  while (layout.falsePositiveRate(m, hi, k) <= p) {
    lo = hi;
    hi *= 2;
    if (hi > Number.MAX_SAFE_INTEGER) return lo;
  }
  // Invariant: rate(lo) ≤ p < rate(hi).
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (layout.falsePositiveRate(m, mid, k) <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** k from 1 to 64, in ascending order of the layout's lower bound when it has one (else ascending). */
function hashOrder(n: number, p: number, layout: Layout): number[] {
  const ks = Array.from({ length: MAX_HASHES }, (_, i) => i + 1);
  const bound = layout.bitsAtLeast;
  if (bound === undefined) return ks;
  const bounds = ks.map((k) => bound(n, p, k));
  return ks.sort((a, b) => bounds[a - 1]! - bounds[b - 1]! || a - b);
}
