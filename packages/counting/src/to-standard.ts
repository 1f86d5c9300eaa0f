import type { ResolvedShape } from '@bloomkit/core/internal';
import { BitArray, type CounterArray, type FilterState } from '@bloomkit/core/kit';
import { StandardBloomFilter } from '@bloomkit/standard';

/** A standard filter whose bit i is set where counter i is non-zero (same m, k, seed, hence the same answers). */
export function toStandardFilter(
  counters: CounterArray,
  shape: ResolvedShape,
  state: Omit<FilterState<BitArray>, 'storage'>,
): StandardBloomFilter {
  const bits = new BitArray(counters.size);
  for (let i = 0; i < counters.size; i++) if (counters.get(i) !== 0) bits.mark(i);
  return new StandardBloomFilter(shape, { ...state, storage: bits });
}
