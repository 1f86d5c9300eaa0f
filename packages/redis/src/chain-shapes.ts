import { chooseShape, FormatError, MAX_HASHES, partitionedLayout } from '@bloomkit/core';
import { MAX_SUB_FILTERS, type Schedule, subCapacities, subFprs } from '@bloomkit/scalable';
import { MAX_STRING_BITS } from './bytes.js';
import { metaKey } from './keys.js';

/** m and k of one sub-filter of a scalable filter in Redis. */
export interface ChainShape {
  /** m: bits, a multiple of k (the partitioned layout). */
  readonly bits: number;
  /** k: hashes. */
  readonly hashes: number;
}

/**
 * A scalable filter in Redis keeps the m and k of every sub-filter its chain may ever hold in the meta hash's
 * `shapes`, written once when the filter is created or imported. Whoever grows the chain (a Node handle's script,
 * or the functions library for any other client) reads the next sub-filter's shape there instead of sizing it,
 * so two writers never disagree on a sub-filter's m by a rounding step of their math libraries, and an imported
 * file's sub-filters keep whatever m and k they were written with (docs/FORMAT.md §3.4 lets a writer choose them).
 *
 * The chain's capacities c_j and rates P_j are the schedule's (`subCapacities`, `subFprs`: products and ceilings
 * only, which every reader computes alike); the list ends before the first sub-filter that could not exist (c_j
 * at or above 2^53, P_j below 2^-1022, more than MAX_SUB_FILTERS) or would not fit one Redis string.
 *
 * `given` are the shapes that already exist (an imported chain's sub-filters); the rest are sized as
 * `PartitionedBloomFilter.create` sizes them.
 */
export function chainShapes(schedule: Schedule, given: readonly ChainShape[] = []): ChainShape[] {
  const capacities = subCapacities(schedule, MAX_SUB_FILTERS);
  const rates = subFprs(schedule, MAX_SUB_FILTERS);
  const shapes: ChainShape[] = given.map(({ bits, hashes }) => ({ bits, hashes }));
  for (let j = shapes.length; j < MAX_SUB_FILTERS; j++) {
    const capacity = capacities[j]!;
    const rate = rates[j]!;
    if (!Number.isSafeInteger(capacity) || !(rate >= 2 ** -1022)) break;
    let shape: ChainShape;
    try {
      shape = chooseShape(capacity, rate, partitionedLayout, 'chainShapes');
    } catch {
      break;
    }
    if (shape.bits > MAX_STRING_BITS) break;
    shapes.push({ bits: shape.bits, hashes: shape.hashes });
  }
  return shapes;
}

/** The meta hash's `shapes`: `m:k` per sub-filter, oldest first, separated by single spaces. */
export function encodeChainShapes(shapes: readonly ChainShape[]): string {
  return shapes.map(({ bits, hashes }) => `${bits}:${hashes}`).join(' ');
}

/**
 * Reads `shapes` back, checked as untrusted input before anything is sized from it: 1 to MAX_SUB_FILTERS entries,
 * each k in [1, MAX_HASHES] and m a multiple of k in [k, 2^32], and every listed sub-filter one the schedule can
 * hold (c_j below 2^53, P_j at least 2^-1022). A FormatError names the field and the entry.
 */
export function decodeChainShapes(
  where: string,
  name: string,
  text: string,
  schedule: Schedule,
): ChainShape[] {
  const bad = (why: string) => new FormatError(`${where}: meta field shapes of ${metaKey(name)} ${why}`);
  if (text.length > MAX_SUB_FILTERS * 24)
    throw bad(`is ${text.length} characters long, more than 512 entries need`);
  const entries = text.split(' ');
  if (entries.length > MAX_SUB_FILTERS) {
    throw bad(`lists ${entries.length} sub-filters, more than ${MAX_SUB_FILTERS}`);
  }
  const capacities = subCapacities(schedule, entries.length);
  const rates = subFprs(schedule, entries.length);
  return entries.map((entry, j) => {
    const match = /^(\d{1,10}):(\d{1,2})$/.exec(entry);
    const bits = Number(match?.[1]);
    const hashes = Number(match?.[2]);
    if (
      match === null ||
      !(hashes >= 1 && hashes <= MAX_HASHES) ||
      !(bits >= hashes && bits <= MAX_STRING_BITS) ||
      bits % hashes !== 0
    ) {
      throw bad(
        `entry ${j} must be m:k with k in [1, ${MAX_HASHES}] and m a multiple of k in [k, 2^32], got ${JSON.stringify(entry)}`,
      );
    }
    if (!Number.isSafeInteger(capacities[j]!) || !(rates[j]! >= 2 ** -1022)) {
      throw bad(
        `lists sub-filter ${j}, which the schedule cannot hold (capacity ${capacities[j]}, rate ${rates[j]})`,
      );
    }
    return { bits, hashes };
  });
}
