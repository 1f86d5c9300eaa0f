import { type KindRecord, partitionedLayout } from '@bloomkit/core';
import { BitFilter } from '@bloomkit/core/kit';

/** Kind 2 of docs/FORMAT.md: its id, name and layout. */
export const partitionedKind: KindRecord = {
  id: 2,
  name: 'partitioned',
  className: 'PartitionedBloomFilter',
  params: 'single',
  layout: partitionedLayout,
  counterWidths: [0],
};

/**
 * A partitioned Bloom filter (Almeida et al., "Scalable Bloom Filters", IPL 2007, §3): m bits split into k slices
 * of s = m/k bits; position i lies in slice i only, so no two of a key's positions can collide.
 *
 * Contract: `has` never answers false for an added key; it answers true for a key never added with probability
 * p = (1 − (1 − 1/s)^n)^k after n adds, a little above the standard layout's rate for the same m. `create(n, p)`
 * picks the smallest m = k·s for which that is at most p. An explicit `bits` is rounded up to a multiple of k.
 *
 * Every slice fills at the same pace (each key sets exactly one bit per slice), which is what the scalable filter
 * relies on to know when a sub-filter is full. Limits: m up to 2^48 bits, paged above 2^32. Serialized form:
 * kind 2 of docs/FORMAT.md.
 */
export class PartitionedBloomFilter extends BitFilter {
  static override readonly kind: KindRecord = partitionedKind;
}
