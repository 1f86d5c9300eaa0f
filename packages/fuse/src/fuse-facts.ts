import type { FilterFact } from '@bloomkit/core';

/** What {@link fuseFacts} reads of a filter: its fingerprint bits, where its keys came from, its layout. */
interface FuseFacts {
  readonly fingerprintBits: number;
  readonly callerHashes: boolean;
  readonly segmentLength: number;
  readonly segmentCount: number;
  readonly arrayLength: number;
}

/** A binary fuse filter's own shape as facts: fingerprint bits, segments, slots, and what its keys are. */
export function fuseFacts(filter: FuseFacts): FilterFact[] {
  const grouped = (n: number) => n.toLocaleString('en-US');
  return [
    {
      key: 'fingerprintBits',
      label: 'fingerprint bits',
      value: filter.fingerprintBits,
      text: `${filter.fingerprintBits}`,
    },
    {
      key: 'segmentLength',
      label: 'slots a segment',
      value: filter.segmentLength,
      text: grouped(filter.segmentLength),
    },
    {
      key: 'segments',
      label: 'segments',
      value: filter.segmentCount + 2,
      text: `${grouped(filter.segmentCount + 2)} (a key's first slot in the first ${grouped(filter.segmentCount)})`,
    },
    { key: 'slots', label: 'slots', value: filter.arrayLength, text: grouped(filter.arrayLength) },
    {
      key: 'keys',
      label: 'keys',
      value: filter.callerHashes ? 'hashes' : 'murmur3',
      text: filter.callerHashes
        ? "the caller's 64-bit hashes (ask with hasHashes)"
        : 'MurmurHash3 x86_128 of each key, first 64 bits',
    },
  ];
}
