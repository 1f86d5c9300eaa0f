import type { FilterFact } from '@bloomkit/core';

/** What {@link cuckooFacts} reads of a filter. */
interface CuckooFacts {
  readonly fingerprintBits: number;
  readonly bucketSize: number;
  readonly buckets: number;
  readonly maxKicks: number;
}

/** A cuckoo filter's own shape as facts: fingerprint bits, slots a bucket, buckets, the longest walk. */
export function cuckooFacts(filter: CuckooFacts): FilterFact[] {
  const grouped = (n: number) => n.toLocaleString('en-US');
  return [
    {
      key: 'fingerprintBits',
      label: 'fingerprint bits',
      value: filter.fingerprintBits,
      text: `${filter.fingerprintBits}`,
    },
    { key: 'bucketSize', label: 'slots a bucket', value: filter.bucketSize, text: `${filter.bucketSize}` },
    { key: 'buckets', label: 'buckets', value: filter.buckets, text: grouped(filter.buckets) },
    {
      key: 'maxKicks',
      label: 'longest walk (kicks)',
      value: filter.maxKicks,
      text: grouped(filter.maxKicks),
    },
  ];
}
