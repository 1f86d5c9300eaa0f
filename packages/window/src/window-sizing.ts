import { InvalidArgumentError } from '@bloomkit/core';
import { checkOpenInterval } from '@bloomkit/core/kit';

/**
 * Sizing of an Age-Partitioned Bloom Filter (Shtul, Baquero, Almeida, "Age-Partitioned Bloom Filters", arXiv
 * 2001.03147, 2020): h = k + l slices of s bits in a ring, a new generation every g keys.
 *
 * A key sets one bit in each of the k newest slices; a key is present when some k consecutive slices all hold its
 * bit. The ring shifts after each generation: the oldest slice is cleared and becomes the newest. A key's bits stay
 * in k consecutive slices for l more shifts, so every key of the current generation and of the l generations
 * before it is found: at least l·g keys. After l + 1 shifts one of its slices is gone and it is forgotten (unless
 * false-positively matched).
 *
 * The rate is highest just before a shift, with every generation full ("the oldest-full ring"): slice i (0 the
 * newest) then holds the bits of min(i + 1, k) generations, so its fill is f_i = 1 − (1 − 1/s)^(min(i+1, k)·g),
 * and a key never added is a false positive when some run of k consecutive slices all have its bit set. Bits are
 * independent across slices (each slice has its own hash position), so the rate is the probability that a
 * sequence of h independent coins with heads-probability f_0 … f_{h−1} has a run of k heads: the paper's
 * recurrence, computed exactly here by a walk over the length of the current run ({@link windowRate}).
 *
 * Sizing chooses k, l and s for a window W and a target p: for each k and l (l ≤ {@link MAX_AGE_SLICES}), the
 * smallest s, a multiple of 64, whose rate is at most p, with g = ⌈W / b⌉ where b = l (a count window) or the
 * generations a time window leaves to its keys (see {@link timedSplit}); the shape with the fewest bits wins.
 */

/** The most slices past the k newest (l): more slices cost lookups (a lookup may read every slice). */
export const MAX_AGE_SLICES = 16;

/** The most slices a key sets a bit in (k): `add` keeps their old bits in one 32-bit word. */
export const MAX_WINDOW_HASHES = 32;

/** Slices are whole 64-bit words, so the ring shifts by clearing whole bytes. */
export const SLICE_ALIGN = 64;

/** The most bits a window filter holds: one array of bytes (2^32 bits, 512 MiB). */
export const MAX_WINDOW_BITS: number = 2 ** 32;

/** A window filter's shape: k, l, slice bits s and generation size g. */
export interface WindowShape {
  /** k: slices each key sets a bit in (the newest k). */
  readonly hashes: number;
  /** l: slices past the k newest; a key is found for l generations after its own. */
  readonly ageSlices: number;
  /** s: bits per slice, a multiple of 64. */
  readonly sliceBits: number;
  /** g: keys per generation (a time window may start one early). */
  readonly generation: number;
}

/**
 * The false-positive rate of the oldest-full ring: every one of the k + l slices holding `generation` keys per
 * generation it has lived through (at most k). Exact for independent uniform positions.
 */
export function windowRate(hashes: number, ageSlices: number, sliceBits: number, generation: number): number {
  const fills: number[] = [];
  const perKey = Math.log1p(-1 / sliceBits);
  for (let i = 0; i < hashes + ageSlices; i++) {
    fills.push(-Math.expm1(Math.min(i + 1, hashes) * generation * perKey));
  }
  return runRate(fills, hashes);
}

/**
 * The probability that a key added `age` generations ago (0: the current generation) is still present, in the
 * oldest-full ring of {@link windowRate}: the key set its bit in the slices then of ages 0 … k − 1, which are now of
 * ages age … age + k − 1; those up to age k + l − 1 still hold it for certain, the rest were cleared and reused as
 * the newest slices. The key is present when some k consecutive slices hold its bit, the others by chance (each
 * with its fill), so this is {@link runRate} with those slices' coins certain. It is 1 for age ≤ l (the window) and
 * falls to the false-positive rate once age ≥ k + l (every slice of the key cleared): this is the curve of how a
 * window forgets. Exact for independent uniform positions, with every generation holding `generation` keys.
 */
export function windowPresence(
  hashes: number,
  ageSlices: number,
  sliceBits: number,
  generation: number,
  age: number,
): number {
  if (age <= ageSlices) return 1;
  const slices = hashes + ageSlices;
  const perKey = Math.log1p(-1 / sliceBits);
  const fills: number[] = [];
  for (let i = 0; i < slices; i++) {
    const own = i >= age && i < age + hashes;
    fills.push(own ? 1 : -Math.expm1(Math.min(i + 1, hashes) * generation * perKey));
  }
  return runRate(fills, hashes);
}

/**
 * The probability that independent coins with these heads-probabilities, in order, show a run of `run` heads:
 * a walk over the length of the current run (states 0 … run − 1), summing the mass that reaches `run`.
 */
export function runRate(fills: readonly number[], run: number): number {
  const state = new Float64Array(run);
  const next = new Float64Array(run);
  state[0] = 1;
  let hit = 0;
  for (const fill of fills) {
    next.fill(0);
    for (let r = 0; r < run; r++) {
      const mass = state[r]!;
      if (mass === 0) continue;
      next[0]! += mass * (1 - fill);
      if (r + 1 === run) hit += mass * fill;
      else next[r + 1]! += mass * fill;
    }
    state.set(next);
  }
  return hit;
}

/**
 * How a time window of l age slices splits them: a generation ends when elapsed/period + keys/g reaches 1, so
 * over any span of `duration` holding at most W keys at most duration/period + W/g generations end. With
 * `perDuration` = ⌈(l + 1)/2⌉ generations per duration by the clock and `keyGenerations` = l − perDuration by
 * count (g = ⌈W / keyGenerations⌉), that is at most l: every key of the last `duration` is found. A key is
 * forgotten once l + 1 generations have ended after it, each within one period: at most (l + 1)/perDuration ≤ 2
 * durations later.
 */
export function timedSplit(ageSlices: number): { perDuration: number; keyGenerations: number } {
  const perDuration = Math.ceil((ageSlices + 1) / 2);
  return { perDuration, keyGenerations: ageSlices - perDuration };
}

/** The generations of keys a window of `ageSlices` keeps (l, or l less the clock's share for a time window). */
export function keyGenerations(ageSlices: number, timed: boolean): number {
  return timed ? timedSplit(ageSlices).keyGenerations : ageSlices;
}

/** The smallest s (a multiple of 64) whose oldest-full rate is at most `fpr`, or undefined past the bit limit. */
function smallestSlice(
  hashes: number,
  ageSlices: number,
  generation: number,
  fpr: number,
): number | undefined {
  const slices = hashes + ageSlices;
  const limit = Math.floor(MAX_WINDOW_BITS / slices / SLICE_ALIGN);
  if (windowRate(hashes, ageSlices, limit * SLICE_ALIGN, generation) > fpr) return undefined;
  let low = 0; // a rate above fpr (or no slice)
  let high = limit; // a rate at most fpr
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (windowRate(hashes, ageSlices, mid * SLICE_ALIGN, generation) <= fpr) high = mid;
    else low = mid;
  }
  return high * SLICE_ALIGN;
}

/**
 * The shape with the fewest bits that remembers at least `window` keys (a time window: every key of the last
 * duration while at most `window` arrive per duration) at an oldest-full rate of at most `fpr`.
 */
export function chooseWindowShape(where: string, window: number, fpr: number, timed: boolean): WindowShape {
  if (typeof window !== 'number' || !Number.isSafeInteger(window) || window < 1) {
    throw new InvalidArgumentError(
      `${where}: window must be an integer in [1, 2^53 - 1], got ${String(window)}`,
    );
  }
  checkOpenInterval(where, 'fpr', fpr, 0, 1);
  let best: (WindowShape & { bits: number }) | undefined;
  for (let ageSlices = timed ? 3 : 1; ageSlices <= MAX_AGE_SLICES; ageSlices++) {
    const generation = Math.ceil(window / keyGenerations(ageSlices, timed));
    let fewest = Number.POSITIVE_INFINITY; // for this l
    for (let hashes = 1; hashes <= MAX_WINDOW_HASHES; hashes++) {
      const sliceBits = smallestSlice(hashes, ageSlices, generation, fpr);
      if (sliceBits === undefined) continue;
      const bits = sliceBits * (hashes + ageSlices);
      if (best === undefined || bits < best.bits) best = { hashes, ageSlices, sliceBits, generation, bits };
      // Bits over k fall to one minimum and rise after it: well past it, stop.
      fewest = Math.min(fewest, bits);
      if (bits > fewest * 1.5) break;
    }
  }
  if (best === undefined) {
    throw new InvalidArgumentError(
      `${where}: a window of ${window} keys at fpr ${fpr} needs more than ${MAX_WINDOW_BITS} bits; ask for a smaller window or a larger fpr`,
    );
  }
  const { bits: _bits, ...shape } = best;
  return shape;
}
