import { chooseShape, partitionedLayout } from '@bloomkit/core';
import { checkInteger, checkOneOf, checkOpenInterval } from '@bloomkit/core/internal';

/**
 * The growth schedule of a scalable filter (Almeida et al., "Scalable Bloom Filters", IPL 2007, §4):
 * sub-filter i is sized for n0·g^i keys at error P0·r^i, with P0 = P·(1 − r). Its rates sum to
 * P0·(1 + r + r² + …) = P0 / (1 − r) = P, and the compounded rate 1 − Π(1 − P_i) is below that sum, so the
 * filter stays under its target P however many sub-filters it grows.
 */

/** Allowed growth factors g: each sub-filter holds g times the keys of the one before. */
export const GROWTH_FACTORS: readonly (2 | 4)[] = [2, 4];
/** Default growth factor: 2, the paper's choice for streams whose size is unknown. */
export const DEFAULT_GROWTH = 2;
/** Default tightening ratio r: 0.85, inside the paper's recommended 0.8–0.9. */
export const DEFAULT_TIGHTENING = 0.85;

/** The validated parameters of a scalable filter. */
export interface Schedule {
  /** n0: the first sub-filter's capacity. */
  readonly initialCapacity: number;
  /** P: the target false-positive rate of the whole filter. */
  readonly fpr: number;
  /** g: 2 or 4. */
  readonly growth: 2 | 4;
  /** r: in (0, 1). */
  readonly tightening: number;
}

/** Checks n0, P, g and r, naming the parameter and its range. */
export function checkSchedule(where: string, schedule: Schedule): Schedule {
  return {
    initialCapacity: checkInteger(
      where,
      'initialCapacity',
      schedule.initialCapacity,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    fpr: checkOpenInterval(where, 'fpr', schedule.fpr, 0, 1),
    growth: checkOneOf(where, 'growth', schedule.growth, GROWTH_FACTORS),
    tightening: checkOpenInterval(where, 'tightening', schedule.tightening, 0, 1),
  };
}

/** n0·g^i: the capacity of sub-filter i (exact while below 2^53; see {@link checkGrowth}). */
export function subCapacity(schedule: Schedule, i: number): number {
  return schedule.initialCapacity * schedule.growth ** i;
}

/**
 * The target rates of sub-filters 0 … count − 1, P_i = P·(1 − r)·r^i, computed exactly as docs/FORMAT.md §3.4
 * specifies so that every reader agrees bit for bit: f_0 = P × (1 − r), then f_{i+1} = f_i × r, each one IEEE 754
 * double operation rounded to nearest (never `pow`, whose last bit differs between math libraries).
 */
export function subFprs(schedule: Schedule, count: number): number[] {
  const rates = new Array<number>(count);
  let rate = schedule.fpr * (1 - schedule.tightening);
  for (let i = 0; i < count; i++) {
    rates[i] = rate;
    rate *= schedule.tightening;
  }
  return rates;
}

/** What sub-filter i of a schedule is: its capacity and rate, and the m and k that sizing picks for them. */
export interface SubFilterShape {
  readonly capacity: number;
  readonly fpr: number;
  readonly bits: number;
  readonly hashes: number;
}

/**
 * The shape of sub-filter `i` (0-based): n0·g^i keys at rate P_i (see {@link subFprs}), sized as
 * `PartitionedBloomFilter.create` sizes them. A store that keeps the chain elsewhere (Redis) computes the same
 * sub-filters from the schedule alone.
 */
export function subFilterShape(schedule: Schedule, i: number): SubFilterShape {
  const capacity = subCapacity(schedule, i);
  const fpr = subFprs(schedule, i + 1)[i]!;
  const { bits, hashes } = chooseShape(capacity, fpr, partitionedLayout, 'subFilterShape');
  return { capacity, fpr, bits, hashes };
}

/** The most sub-filters a chain may hold: with g = 2 and n0 = 1, sub-filter 52 is the last below 2^53 keys. */
export const MAX_SUB_FILTERS = 53;

/**
 * Checks that a chain of `count` sub-filters can exist: each capacity n0·g^i a safe integer and each rate a
 * positive normal double, for i < count. Throws `Failure` (FormatError when reading, BloomError when growing)
 * with a message naming the sub-filter. This is what keeps a file from scheduling an impossible sub-filter.
 */
export function checkGrowth(
  where: string,
  schedule: Schedule,
  count: number,
  Failure: new (message: string) => Error,
): void {
  if (count > MAX_SUB_FILTERS) {
    throw new Failure(
      `${where}: a scalable filter holds at most ${MAX_SUB_FILTERS} sub-filters, this one needs ${count}`,
    );
  }
  const last = count - 1;
  const capacity = subCapacity(schedule, last);
  if (!Number.isSafeInteger(capacity)) {
    throw new Failure(
      `${where}: sub-filter ${last} would hold n0·g^${last} = ${capacity} keys, above 2^53 − 1`,
    );
  }
  const rate = subFprs(schedule, count)[last]!;
  if (!(rate >= 2 ** -1022)) {
    throw new Failure(
      `${where}: sub-filter ${last} would need a false-positive rate of ${rate}, below 2^-1022`,
    );
  }
}
