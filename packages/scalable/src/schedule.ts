import { checkInteger, checkOneOf, checkOpenInterval } from '@bloomkit/core';

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

/** n0·g^i: the capacity of sub-filter i. */
export function subCapacity(schedule: Schedule, i: number): number {
  return schedule.initialCapacity * schedule.growth ** i;
}

/** P·(1 − r)·r^i: the target rate of sub-filter i. */
export function subFpr(schedule: Schedule, i: number): number {
  return schedule.fpr * (1 - schedule.tightening) * schedule.tightening ** i;
}
