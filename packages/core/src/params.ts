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

/** Bits in a block of the blocked layout: one 64-byte cache line. */
export const BLOCK_BITS = 512;

/**
 * The expected false-positive rate of a blocked filter: m bits in m/B blocks of B bits; each key sets k positions
 * (with repetition) in one block chosen uniformly. With n keys the number J of keys in a block is Binomial(n, B/m),
 * ≈ Poisson(λ = n·B/m), and a block holding j keys answers a query falsely with the standard formula for B bits:
 *
 *     p = Σ_j Pr[J = j] · (1 − (1 − 1/B)^{k·j})^k
 *
 * (Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", JEA 14, 2009, §3), summed from
 * j = 0 until the terms are negligible (j > λ + 12·√λ + 40). The Poisson weights follow one another by a product,
 * Pr[J = j] = Pr[J = j − 1]·λ/j, and (1 − 1/B)^{k·j} by another, so a term costs a few multiplies and a power by
 * squaring: `chooseShape` evaluates it hundreds of times per blocked `create`. Where e^{−λ} underflows (λ > 700)
 * the weights go in log space instead. Above the standard rate for the same m, because block loads vary: the
 * sizing in `chooseShape` pays for that with more bits.
 */
export function blockedFalsePositiveRate(
  m: number,
  n: number,
  k: number,
  blockBits: number = BLOCK_BITS,
): number {
  if (n <= 0) return 0;
  const blocks = m / blockBits;
  if (blocks <= 1) return falsePositiveRate(m, n, k);
  const lambda = n / blocks;
  const perKey = k * Math.log1p(-1 / blockBits);
  const last = Math.ceil(lambda + 12 * Math.sqrt(lambda) + 40);
  if (lambda > 700) return blockedRateInLogSpace(lambda, perKey, k, last);
  const empty = Math.exp(perKey); // (1 − 1/B)^k: what one key leaves of a bit's chance to stay 0
  let weight = Math.exp(-lambda); // Pr[J = 0]
  let zero = 1; // (1 − 1/B)^{k·j}
  let sum = 0;
  for (let j = 0; j <= last; j++) {
    sum += weight * powInt(1 - zero, k);
    weight *= lambda / (j + 1);
    zero *= empty;
  }
  return Math.min(1, sum);
}

/** x^k for an integer k ≥ 1, by squaring (a handful of multiplies; `**` is several times slower here). */
function powInt(x: number, k: number): number {
  let result = 1;
  let base = x;
  for (let e = k; e > 0; e >>= 1) {
    if ((e & 1) === 1) result *= base;
    base *= base;
  }
  return result;
}

/** The same sum with the Poisson weights in log space, for loads where e^{−λ} underflows. */
function blockedRateInLogSpace(lambda: number, perKey: number, k: number, last: number): number {
  const logLambda = Math.log(lambda);
  let logTerm = -lambda; // log Pr[J = 0]
  let sum = 0;
  for (let j = 0; j <= last; j++) {
    if (j > 0) logTerm += logLambda - Math.log(j);
    if (logTerm > -745) sum += Math.exp(logTerm) * (-Math.expm1(perKey * j)) ** k;
  }
  return Math.min(1, sum);
}
