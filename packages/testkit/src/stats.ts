/** One-sided z for 99.9% confidence. */
export const Z_999 = 3.090232;

/**
 * The 99.9% upper confidence bound on the number of false positives among `trials` probes when each is a false
 * positive with probability `p` (normal approximation to the binomial, with a continuity correction).
 */
export function upperBoundCount(p: number, trials: number, z = Z_999): number {
  return trials * p + z * Math.sqrt(trials * p * (1 - p)) + 0.5;
}

/**
 * Pearson's chi-square statistic of observed bucket counts against equal expected counts.
 */
export function chiSquare(observed: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < observed.length; i++) total += observed[i]!;
  const expected = total / observed.length;
  let sum = 0;
  for (let i = 0; i < observed.length; i++) sum += (observed[i]! - expected) ** 2 / expected;
  return sum;
}

/** Upper 0.1% critical value of chi-square with 63 degrees of freedom (64 buckets), from standard tables. */
export const CHI2_63_P999 = 103.442;

/** Counts how many of `keys` the filter reports as present. */
export function countHits<K>(filter: { has(key: K): boolean }, keys: readonly K[]): number {
  let hits = 0;
  for (const key of keys) if (filter.has(key)) hits++;
  return hits;
}

/**
 * Variance of the number of occupied slots after `draws` balls are thrown uniformly into `slots` slots (the
 * classical occupancy problem; Johnson & Kotz, "Urn Models", 1977, §3.2): with q1 = (1 − 1/m)^d and
 * q2 = (1 − 2/m)^d, Var = m(m − 1)·q2 + m·q1 − m²·q1².
 */
export function occupancyVariance(slots: number, draws: number): number {
  const q1 = Math.exp(draws * Math.log1p(-1 / slots));
  const q2 = slots > 2 ? Math.exp(draws * Math.log1p(-2 / slots)) : slots === 2 ? 0 ** draws : 0;
  return Math.max(0, slots * (slots - 1) * q2 + slots * q1 - slots * slots * q1 * q1);
}

/** The shape of one (sub-)filter, for {@link fprBound}. */
export interface FilledShape {
  readonly layout: 'standard' | 'partitioned' | 'blocked';
  readonly bits: number;
  readonly hashes: number;
  /** Distinct keys added. */
  readonly n: number;
}

/**
 * Mean and variance of a filled filter's false-positive rate over the randomness of which bits its keys set.
 * The rate of a given filter is F^k (F its fill fraction; for the partitioned layout, the product of the slices'
 * fills); by the delta method its variance is (k·F^{k−1})²·Var(F) for the standard layout and
 * k·F^{2k−2}·Var(F_slice) for the partitioned one, with Var(F) from {@link occupancyVariance}.
 */
export function fprMoments(shape: FilledShape): { mean: number; variance: number } {
  const { layout, bits, hashes: k, n } = shape;
  if (layout === 'blocked') return blockedMoments(bits, k, n);
  const slots = layout === 'standard' ? bits : bits / k;
  const draws = layout === 'standard' ? k * n : n;
  const fill = -Math.expm1(draws * Math.log1p(-1 / slots));
  const fillVariance = occupancyVariance(slots, draws) / (slots * slots);
  const slope = fill ** (k - 1);
  const variance =
    layout === 'standard' ? k * k * slope * slope * fillVariance : k * slope * slope * fillVariance;
  return { mean: fill ** k, variance };
}

/**
 * The 99.9% upper confidence bound on the number of false positives among `probes` absent keys, for filters
 * whose rates add up (one filter, or the sub-filters of a scalable one, which are independent: the union rate
 * 1 − Π(1 − p_i) is at most Σ p_i). Both sources of randomness count (law of total variance): which bits the
 * filter's keys set, N²·Var(p), and which probes hit, N·p·(1 − p).
 */
export function fprUpperBoundCount(shapes: readonly FilledShape[], probes: number, z = Z_999): number {
  const { expected, sd } = falsePositiveCount(shapes, probes);
  return expected + z * sd + 0.5;
}

/**
 * The 99.9% lower confidence bound on the same count: a measurement below it finds too few false positives (a
 * broken measurement, or a filter that is not the one the formula describes).
 */
export function fprLowerBoundCount(shapes: readonly FilledShape[], probes: number, z = Z_999): number {
  const { expected, sd } = falsePositiveCount(shapes, probes);
  return expected - z * sd - 0.5;
}

function falsePositiveCount(
  shapes: readonly FilledShape[],
  probes: number,
): { expected: number; sd: number } {
  let mean = 0;
  let variance = 0;
  for (const shape of shapes) {
    const moments = fprMoments(shape);
    mean += moments.mean;
    variance += moments.variance;
  }
  const total = probes * mean * (1 - mean) + probes * probes * variance;
  return { expected: probes * mean, sd: Math.sqrt(total) };
}

/**
 * The blocked layout (blocks of 512 bits): the rate of a given filter is the mean over its B = m/512 blocks of
 * f(J_b) = (1 − (1 − 1/512)^{k·J_b})^k, J_b ~ Poisson(λ = 512·n/m) the keys in block b. Its mean is the Poisson
 * mixture (blockedFalsePositiveRate in core) and, the blocks' loads being nearly independent, its variance is
 * (E[f(J)²] − E[f(J)]²) / B. (The within-block bit randomness adds less than the load's; it is left out.)
 */
function blockedMoments(bits: number, k: number, n: number): { mean: number; variance: number } {
  const blockBits = 512;
  const blocks = bits / blockBits;
  const lambda = n / blocks;
  const perKey = k * Math.log1p(-1 / blockBits);
  let logTerm = -lambda;
  let mean = 0;
  let square = 0;
  const last = Math.ceil(lambda + 12 * Math.sqrt(lambda) + 40);
  for (let j = 0; j <= last; j++) {
    if (j > 0) logTerm += Math.log(lambda) - Math.log(j);
    const f = (-Math.expm1(perKey * j)) ** k;
    const weight = Math.exp(logTerm);
    mean += weight * f;
    square += weight * f * f;
  }
  return { mean, variance: Math.max(0, square - mean * mean) / blocks };
}
