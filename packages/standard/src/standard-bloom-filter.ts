import { type KindRecord, standardLayout } from '@bloomkit/core';
import { BitFilter } from '@bloomkit/core/kit';

/** Kind 1 of docs/FORMAT.md: its id, name and layout. */
export const standardKind: KindRecord = {
  id: 1,
  name: 'standard',
  className: 'StandardBloomFilter',
  params: 'single',
  layout: standardLayout,
  counterWidths: [0],
};

/**
 * The classic Bloom filter (Bloom, CACM 1970): m bits, k positions per key anywhere in the m bits.
 *
 * Contract: `has` never answers false for an added key; it answers true for a key never added with probability
 * p = (1 − (1 − 1/m)^{kn})^k after n adds (Broder & Mitzenmacher 2004, §2.1). `create(n, p)` picks the smallest m
 * for which that is at most p: about 9.6 bits per key at p = 0.01 and 14.4 at p = 0.001, k = 7 and 10.
 *
 * Limits: m up to 2^48 bits; above 2^32 bits the bits are paged (see BitArray). Serialized form: kind 1 of
 * docs/FORMAT.md.
 */
export class StandardBloomFilter extends BitFilter {
  static override readonly kind: KindRecord = standardKind;
}
