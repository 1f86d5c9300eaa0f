import { type FilterFact, fact } from '@bloomkit/core';

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
  const segments = filter.segmentCount + 2;
  return [
    fact('fingerprintBits', 'fingerprint bits', filter.fingerprintBits),
    fact('segmentLength', 'slots a segment', filter.segmentLength),
    fact(
      'segments',
      'segments',
      segments,
      `${segments.toLocaleString('en-US')} (a key's first slot in the first ${filter.segmentCount.toLocaleString('en-US')})`,
    ),
    fact('slots', 'slots', filter.arrayLength),
    fact(
      'keys',
      'keys',
      filter.callerHashes ? 'hashes' : 'murmur3',
      filter.callerHashes
        ? "the caller's 64-bit hashes (ask with hasHashes)"
        : 'MurmurHash3 x86_128 of each key, first 64 bits',
    ),
  ];
}
