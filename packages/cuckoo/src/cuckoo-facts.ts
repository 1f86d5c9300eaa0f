import { type FilterFact, fact } from '@bloomkit/core';

/** What {@link cuckooFacts} reads of a filter. */
interface CuckooFacts {
  readonly fingerprintBits: number;
  readonly bucketSize: number;
  readonly buckets: number;
  readonly maxKicks: number;
}

/** A cuckoo filter's own shape as facts: fingerprint bits, slots a bucket, buckets, max kicks. */
export function cuckooFacts(filter: CuckooFacts): FilterFact[] {
  return [
    fact('fingerprintBits', 'fingerprint bits', filter.fingerprintBits),
    fact('bucketSize', 'slots a bucket', filter.bucketSize),
    fact('buckets', 'buckets', filter.buckets),
    fact('maxKicks', 'max kicks', filter.maxKicks),
  ];
}
