import { blockedLayout, type KindRecord } from '@bloomkit/core';
import { BitFilter } from '@bloomkit/core/kit';

/** Kind 5 of docs/FORMAT.md: its id, name and layout. */
export const blockedKind: KindRecord = {
  id: 5,
  name: 'blocked',
  className: 'BlockedBloomFilter',
  params: 'single',
  layout: blockedLayout,
  counterWidths: [0],
};

/**
 * A blocked Bloom filter (RocksDB's FastLocalBloom; Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient
 * Bloom Filters", JEA 14, 2009): m bits in blocks of 512 bits, one 64-byte cache line. A key's hash picks one block
 * and its k positions inside it, so `add` and `has` touch one cache line where a standard filter touches k: the
 * layout for filters larger than the CPU caches, and the one that shards (any run of whole blocks is
 * self-contained).
 *
 * Contract: `has` never answers false for an added key; it answers true for a key never added with probability
 * p = Σ_j Pr[J = j]·(1 − (1 − 1/512)^{kj})^k after n adds, J ~ Poisson(512·n/m) the keys in a block. Blocks fill
 * unevenly, so for the same rate a blocked filter needs more bits than a standard one: `create(n, p)` picks the
 * smallest m (a multiple of 512) whose predicted rate is at most p — +0.5% bits at p = 0.1, +3.2% at 0.01, +7.7% at
 * 10^-3, +14% at 10^-4, +23% at 10^-5 (k = 3, 6, 9, 12, 14).
 *
 * Limits: m up to 2^41 bits (2^32 blocks, 256 GiB); an explicit `bits` is rounded up to a multiple of 512.
 * Serialized form: kind 5 of docs/FORMAT.md.
 */
export class BlockedBloomFilter extends BitFilter {
  static override readonly kind: KindRecord = blockedKind;
}
