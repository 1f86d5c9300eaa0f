/**
 * The shape of a binary fuse filter for a set of `size` keys with three positions a key (Graf & Lemire, "Binary
 * Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 27, 2022, §4): the array is cut into segments of
 * `segmentLength` slots (a power of two), a key's three slots lie in three consecutive segments, and there are
 * `segmentCount` + 2 segments. The sizing is the reference's (FastFilter/xor_singleheader `binaryfusefilter.h`,
 * `binary_fuse8_allocate`, the same for 16 bits), with its uint32 arithmetic, so that a filter built here and one
 * built by the reference from the same keys are the same bytes:
 *
 *   segmentLength = 2^⌊ln(n) / ln(3.33) + 2.25⌋, at most 2^18 (4 for n = 0)
 *   capacity      = round(n × max(1.125, 0.875 + 0.25 × ln(10^6) / ln(n)))   (0 for n ≤ 1)
 *   segmentCount  = ⌈capacity / segmentLength⌉ − 2, at least 1
 *   arrayLength   = (segmentCount + 2) × segmentLength
 *
 * (the reference computes segmentCount in two steps through arrayLength, wrapping below 0 for tiny sets; the steps
 * are kept as written.) About 1.125 slots a key for large sets: 9.0 bits a key with 8-bit fingerprints.
 */
export interface FuseLayout {
  /** Keys the filter was sized for (the reference's `Size`: duplicates included). */
  readonly size: number;
  /** L: slots a segment, a power of two in [4, 2^18]. */
  readonly segmentLength: number;
  /** L − 1. */
  readonly segmentLengthMask: number;
  /** c: segments a key's first slot may fall in (c + 2 in all). */
  readonly segmentCount: number;
  /** segmentCount × segmentLength: the range of a key's first slot. */
  readonly segmentCountLength: number;
  /** Slots (fingerprints) of the filter. */
  readonly arrayLength: number;
}

/** The reference's cap on a segment's length. */
export const MAX_SEGMENT_LENGTH = 262_144;

/** The layout of a filter sized for `size` keys (an integer in [0, 2^32)). */
export function fuseLayout(size: number): FuseLayout {
  let segmentLength = size === 0 ? 4 : 2 ** Math.floor(Math.log(size) / Math.log(3.33) + 2.25);
  if (segmentLength > MAX_SEGMENT_LENGTH) segmentLength = MAX_SEGMENT_LENGTH;
  const sizeFactor = size <= 1 ? 0 : Math.max(1.125, 0.875 + (0.25 * Math.log(1_000_000)) / Math.log(size));
  const capacity = size <= 1 ? 0 : Math.round(size * sizeFactor) >>> 0;
  const initSegmentCount = (Math.floor((capacity + segmentLength - 1) / segmentLength) - 2) >>> 0;
  let arrayLength = ((initSegmentCount + 2) * segmentLength) % 2 ** 32;
  let segmentCount = Math.floor(((arrayLength + segmentLength - 1) % 2 ** 32) / segmentLength);
  segmentCount = segmentCount <= 2 ? 1 : segmentCount - 2;
  arrayLength = ((segmentCount + 2) * segmentLength) % 2 ** 32;
  return {
    size,
    segmentLength,
    segmentLengthMask: segmentLength - 1,
    segmentCount,
    segmentCountLength: (segmentCount * segmentLength) % 2 ** 32,
    arrayLength,
  };
}
