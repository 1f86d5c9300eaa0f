import { chooseShape, InvalidArgumentError, partitionedLayout } from '@bloomkit/core';
import { checkInteger, checkOpenInterval } from '@bloomkit/core/kit';

/**
 * The growth schedule of a scalable filter (Almeida et al., "Scalable Bloom Filters", IPL 2007, §4):
 * sub-filter i is sized for c_i keys, c_0 = n0 and c_{i+1} = ⌈c_i·g⌉ (about n0·g^i), at error P0·r^i, with
 * P0 = P·(1 − r). Its rates sum to P0·(1 + r + r² + …) = P0 / (1 − r) = P, and the compounded rate 1 − Π(1 − P_i)
 * is below that sum, so the filter stays under its target P however many sub-filters it grows.
 *
 * **Why g = 1.5 and r = 0.93.** Memory, as bits held over the bits of an ideal standard filter for the same N keys
 * at P, has two factors: the newest sub-filter is allocated whole (right after a growth the chain holds about g
 * times the capacity it uses; on geometric mean over N about √g), and each sub-filter's tighter error costs
 * ln(1/P_i) / ln(1/P) times the bits per key. A small g shrinks the first factor and needs more sub-filters, so
 * r must be close to 1 to keep the second in check. Over every N from 10^4 to 3·10^6 at P = 0.01 (sub-filters
 * sized as `create` sizes them; `pnpm bench --scalable-memory`):
 *
 *     g, r         from n0 = 100: geometric mean, worst   from n0 = 1000   sub-filters at 10^6 keys (n0 = 1000)
 *     2, 0.85      2.45×, 3.74×                           2.30×, 3.53×     10
 *     1.5, 0.93    2.21×, 2.86×                           2.11×, 2.75×     16
 *     1.2, 0.96    2.12×, 2.49×                           2.02×, 2.36×     30
 *
 * With g = 2 no r keeps the worst case under 3× (the allocation alone is ~2× right after a growth, and the best
 * error schedule for those capacities, fitted to the range, still gives 2.14× on geometric mean). 1.2 with 0.96 is
 * the smallest geometric mean of a grid over g in 1.1–2 and r in 0.7–0.99, but an add of a new key looks in every
 * sub-filter, and 30 of them cost twice the lookups of 16. 1.5 keeps the worst under 3× from both starts.
 * The geometric mean cannot reach 2.0× from n0 = 100 this way: even a schedule fitted to this range (spending its
 * whole error budget inside it, so wrong for any longer stream) gives 1.97–2.00× for g from 1.2 to 1.5.
 */

/** The smallest growth factor: each sub-filter at least 1/8 larger than the one before. */
export const MIN_GROWTH = 1.125;
/** The largest growth factor. */
export const MAX_GROWTH = 4;
/** Default growth factor g: 1.5 (see above). */
export const DEFAULT_GROWTH = 1.5;
/** Default tightening ratio r: 0.93 (see above). */
export const DEFAULT_TIGHTENING = 0.93;

/** The validated parameters of a scalable filter. */
export interface Schedule {
  /** n0: the first sub-filter's capacity. */
  readonly initialCapacity: number;
  /** P: the target false-positive rate of the whole filter. */
  readonly fpr: number;
  /** g: in [1.125, 4]. */
  readonly growth: number;
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
    growth: checkGrowthFactor(where, schedule.growth),
    tightening: checkOpenInterval(where, 'tightening', schedule.tightening, 0, 1),
  };
}

/**
 * A growth factor g in [{@link MIN_GROWTH}, {@link MAX_GROWTH}], else an InvalidArgumentError naming `growth`: the
 * check `create` applies, for stores that keep the chain elsewhere.
 */
export function checkGrowthFactor(where: string, growth: unknown): number {
  if (typeof growth !== 'number' || !(growth >= MIN_GROWTH && growth <= MAX_GROWTH)) {
    const got = typeof growth === 'number' ? `number ${growth}` : typeof growth;
    throw new InvalidArgumentError(
      `${where}: growth must be a number in [${MIN_GROWTH}, ${MAX_GROWTH}], got ${got}`,
    );
  }
  return growth;
}

/**
 * The capacities of sub-filters 0 … count − 1, computed exactly as docs/FORMAT.md §3.4 specifies: c_0 = n0, then
 * c_{i+1} = ⌈c_i × g⌉ with × one IEEE 754 binary64 product rounded to nearest. Each is at least one more than the
 * one before (g ≥ 1.125). Exact while below 2^53 (see {@link checkGrowth}).
 */
export function subCapacities(schedule: Schedule, count: number): number[] {
  const capacities = new Array<number>(count);
  let capacity = schedule.initialCapacity;
  for (let i = 0; i < count; i++) {
    capacities[i] = capacity;
    capacity = Math.ceil(capacity * schedule.growth);
  }
  return capacities;
}

/** c_i: the capacity of sub-filter i (see {@link subCapacities}). */
export function subCapacity(schedule: Schedule, i: number): number {
  return subCapacities(schedule, i + 1)[i]!;
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
  /** c_i: the keys it is sized for. */
  readonly capacity: number;
  /** P_i = P·(1 − r)·r^i: its share of the error budget. */
  readonly fpr: number;
  /** m: its bits. */
  readonly bits: number;
  /** k: its hashes. */
  readonly hashes: number;
}

/**
 * The shape of sub-filter `i` (0-based): c_i keys (see {@link subCapacities}) at rate P_i (see {@link subFprs}), sized as
 * `PartitionedBloomFilter.create` sizes them. A store that keeps the chain elsewhere (Redis) computes the same
 * sub-filters from the schedule alone.
 */
export function subFilterShape(schedule: Schedule, i: number): SubFilterShape {
  const capacity = subCapacity(schedule, i);
  const fpr = subFprs(schedule, i + 1)[i]!;
  const { bits, hashes } = chooseShape(capacity, fpr, partitionedLayout, 'subFilterShape');
  return { capacity, fpr, bits, hashes };
}

/**
 * The most sub-filters a chain may hold. With g = 1.125 and n0 = 1 the capacities pass 2^53 after about 300
 * sub-filters; a chain that long is legal but slow (an add looks in every sub-filter), and 512 bounds what a file
 * may ask a reader to allocate.
 */
export const MAX_SUB_FILTERS = 512;

/**
 * Checks that a chain of `count` sub-filters can exist: each capacity c_i a safe integer and each rate a
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
    throw new Failure(`${where}: sub-filter ${last} would hold ${capacity} keys, above 2^53 − 1`);
  }
  const rate = subFprs(schedule, count)[last]!;
  if (!(rate >= 2 ** -1022)) {
    throw new Failure(
      `${where}: sub-filter ${last} would need a false-positive rate of ${rate}, below 2^-1022`,
    );
  }
}

/**
 * The sub-filters a scalable filter of `schedule` holds after `keys` distinct adds, sized as `create` sizes them:
 * the chain grows when its newest sub-filter holds its capacity, so it holds the first sub-filters whose capacities
 * sum to at least `keys` (the newest allocated whole). Their bits summed are the filter's memory at that size. A new
 * key that looks present already is not inserted, so a real chain grows a little later than this, never earlier.
 * InvalidArgumentError for a bad schedule (as `create`), for `keys` not in [1, 2^53 − 1], and for a size past
 * {@link MAX_SUB_FILTERS} sub-filters or past the rates a sub-filter can have.
 */
export function chainAt(schedule: Schedule, keys: number): SubFilterShape[] {
  const where = 'chainAt';
  const checked = checkSchedule(where, schedule);
  checkInteger(where, 'keys', keys, 1, Number.MAX_SAFE_INTEGER);
  const shapes: SubFilterShape[] = [];
  for (let held = 0; held < keys; ) {
    checkGrowth(where, checked, shapes.length + 1, InvalidArgumentError);
    let shape: SubFilterShape;
    try {
      shape = subFilterShape(checked, shapes.length);
    } catch (error) {
      const why = error instanceof Error ? error.message.replace(/^\w+: /, '') : String(error);
      throw new InvalidArgumentError(`${where}: sub-filter ${shapes.length} of ${keys} keys: ${why}`);
    }
    shapes.push(shape);
    held += shape.capacity;
  }
  return shapes;
}
