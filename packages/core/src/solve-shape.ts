import { InvalidArgumentError } from './errors.js';
import type { Layout } from './layout.js';
import { standardLayout } from './layouts/standard.js';
import { MAX_HASHES } from './params.js';
import { capacityFor, chooseShape } from './sizing.js';
import { checkInteger, checkOpenInterval } from './validate.js';

/** What is known of a filter: any two or three of n, p, m and k (not n, p and m together). */
export interface ShapeQuestion {
  /** n: keys. */
  readonly capacity?: number | undefined;
  /** p: the false-positive rate at n keys. */
  readonly fpr?: number | undefined;
  /** m: slots (bits, or counters). */
  readonly bits?: number | undefined;
  /** k: positions per key. */
  readonly hashes?: number | undefined;
}

/** The whole shape {@link solveShape} finds. `capacity` and `bits` are null when only their ratio is fixed (p, k). */
export interface SolvedShape {
  /** n: keys (null when only p and k were given). */
  readonly capacity: number | null;
  /** p: the rate at n keys, under the layout's formula. */
  readonly fpr: number;
  /** m: slots, a multiple of the layout's unit for k (null when only p and k were given). */
  readonly bits: number | null;
  /** k: positions per key. */
  readonly hashes: number;
  /** m / n. */
  readonly bitsPerKey: number;
}

/**
 * Fills in the unknowns of (n, p, m, k) under `layout`'s exact rate, as a sizing calculator does:
 * - n, p: the smallest m and its k, what `create` picks ({@link chooseShape});
 * - n, m: the k with the lowest rate, and that rate;
 * - m, p: the k that holds the most keys, and how many ({@link capacityFor});
 * - n, k or m, k: the other size for which k is optimal (m/n = k / ln 2), and the rate;
 * - p, k: the bits per key that reach p with k (at a nominal 10^6 keys: for large n the rate depends on m/n only);
 * - n, m, k: the rate; n, p, k: the smallest m; m, p, k: the most keys.
 * Every m is rounded up to the layout's unit for its k. Throws InvalidArgumentError for fewer than two values, for
 * n, p and m together (the rate of n keys in m slots is fixed by k), for a value out of range, and when no m up to
 * the layout's limit reaches p.
 */
export function solveShape(question: ShapeQuestion, layout: Layout = standardLayout): SolvedShape {
  const where = 'solveShape';
  const n = optional(question.capacity, (v) =>
    checkInteger(where, 'capacity', v, 1, Number.MAX_SAFE_INTEGER),
  );
  const p = optional(question.fpr, (v) => checkOpenInterval(where, 'fpr', v, 0, 1));
  const m = optional(question.bits, (v) => checkInteger(where, 'bits', v, 1, layout.maxBits));
  const k = optional(question.hashes, (v) => checkInteger(where, 'hashes', v, 1, MAX_HASHES));
  const given = [n, p, m, k].filter((v) => v !== undefined).length;
  if (given < 2) {
    throw new InvalidArgumentError(`${where}: give at least two of capacity, fpr, bits and hashes`);
  }
  if (n !== undefined && m !== undefined && p !== undefined) {
    throw new InvalidArgumentError(
      `${where}: capacity, bits and fpr together over-determine the filter (the rate of n keys in m slots is fixed by k); give two of them, with or without hashes`,
    );
  }
  const rate = (bits: number, keys: number, hashes: number) => layout.falsePositiveRate(bits, keys, hashes);
  const unitUp = (bits: number, hashes: number) => {
    const unit = layout.bitsUnit(hashes);
    return Math.ceil(bits / unit) * unit;
  };
  const shape = (keys: number, fpr: number, bits: number, hashes: number): SolvedShape => ({
    capacity: keys,
    fpr,
    bits,
    hashes,
    bitsPerKey: bits / keys,
  });
  if (n !== undefined && m !== undefined && k !== undefined) {
    const bits = unitUp(m, k);
    return shape(n, rate(bits, n, k), bits, k);
  }
  if (n !== undefined && p !== undefined && k !== undefined) {
    const bits = smallestBits(where, layout, n, p, k);
    return shape(n, rate(bits, n, k), bits, k);
  }
  if (m !== undefined && p !== undefined && k !== undefined) {
    const bits = unitUp(m, k);
    return shape(capacityFor(bits, k, p, layout), p, bits, k);
  }
  if (n !== undefined && m !== undefined) {
    let best: SolvedShape | undefined;
    for (let hashes = 1; hashes <= MAX_HASHES; hashes++) {
      const bits = unitUp(m, hashes);
      const r = rate(bits, n, hashes);
      if (best === undefined || r < best.fpr) best = shape(n, r, bits, hashes);
    }
    return best!;
  }
  if (n !== undefined && p !== undefined) {
    const chosen = chooseShape(n, p, layout, where);
    return shape(n, chosen.predictedFpr, chosen.bits, chosen.hashes);
  }
  if (m !== undefined && p !== undefined) {
    let best = shape(0, p, m, 1);
    for (let hashes = 1; hashes <= MAX_HASHES; hashes++) {
      const bits = unitUp(m, hashes);
      const keys = capacityFor(bits, hashes, p, layout);
      if (keys > best.capacity!) best = shape(keys, p, bits, hashes);
    }
    return best;
  }
  if (k !== undefined && (n !== undefined || m !== undefined)) {
    const keys = n ?? Math.max(1, Math.floor((m! * Math.LN2) / k));
    const bits = unitUp(m ?? Math.ceil((k * keys) / Math.LN2), k);
    return shape(keys, rate(bits, keys, k), bits, k);
  }
  const nominal = 1_000_000;
  const bits = smallestBits(where, layout, nominal, p!, k!);
  return { capacity: null, fpr: rate(bits, nominal, k!), bits: null, hashes: k!, bitsPerKey: bits / nominal };
}

function optional<T>(value: unknown, check: (value: unknown) => T): T | undefined {
  return value === undefined ? undefined : check(value);
}

/** The smallest m (in the layout's unit) whose rate with n keys and k positions is at most p. */
function smallestBits(where: string, layout: Layout, n: number, p: number, k: number): number {
  const unit = layout.bitsUnit(k);
  const fits = (units: number) => layout.falsePositiveRate(units * unit, n, k) <= p;
  let hi = 1;
  while (!fits(hi)) {
    if (hi * unit > layout.maxBits) {
      throw new InvalidArgumentError(
        `${where}: ${n} keys at fpr ${p} with ${k} hashes need more than ${layout.maxBits} bits`,
      );
    }
    hi *= 2;
  }
  let lo = Math.floor(hi / 2);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi * unit;
}
