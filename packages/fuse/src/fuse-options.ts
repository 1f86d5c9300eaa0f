import { InvalidArgumentError } from '@bloomkit/core';

/** The most keys a build takes: about 32 bytes a key of temporary memory, so 2^27 keys need 4 GiB. */
export const MAX_FUSE_KEYS: number = 2 ** 27;

/** Options of {@link BinaryFuseFilter.build} and {@link BinaryFuseFilter.fromHashes}. */
export interface FuseBuildOptions {
  /** Bits of a fingerprint: 8 (9.0 bits a key, a rate of 2^-8) or 16 (18.0 bits a key, 2^-16). Default 8. */
  readonly fingerprintBits?: 8 | 16;
  /** `build` only: the seed of MurmurHash3 x86_128 that hashes the keys, in [0, 2^32). Default 0. */
  readonly seed?: number | 'random';
}

/** The reference struct's fields (FastFilter/xor_singleheader `binary_fuse8_t` / `binary_fuse16_t`). */
export interface FuseReference {
  /** `Seed`: the 64-bit seed of the key mixing, the first of the reference's seed sequence that built the set. */
  readonly seed: bigint;
  /** `Size`: the keys the build was given, repeats included (the layout below is the reference's sizing of it). */
  readonly size: number;
  /** `SegmentLength`: slots a segment, a power of two in [4, 2^18]. */
  readonly segmentLength: number;
  /** `SegmentLengthMask`: segmentLength − 1. */
  readonly segmentLengthMask: number;
  /** `SegmentCount`: segments a key's first slot may fall in (there are segmentCount + 2 in all). */
  readonly segmentCount: number;
  /** `SegmentCountLength`: segmentCount × segmentLength, the range of a key's first slot. */
  readonly segmentCountLength: number;
  /** `ArrayLength`: (segmentCount + 2) × segmentLength fingerprints. */
  readonly arrayLength: number;
  /** `Fingerprints`: the filter's own array (u8 or u16); do not change it. */
  readonly fingerprints: Uint8Array | Uint16Array;
}

/**
 * The fingerprint bits that keep a fixed set's rate at most `fpr`: 8 (2^-8 ≈ 0.39%) when `fpr` ≥ 2^-8, 16 (2^-16)
 * when `fpr` ≥ 2^-16; an InvalidArgumentError below 2^-16 or outside (0, 1).
 */
export function fingerprintBitsFor(fpr: number, where = 'fingerprintBitsFor'): 8 | 16 {
  if (!(typeof fpr === 'number' && fpr > 0 && fpr < 1)) {
    throw new InvalidArgumentError(`${where}: fpr must be in (0, 1), got ${String(fpr)}`);
  }
  if (fpr >= 2 ** -8) return 8;
  if (fpr >= 2 ** -16) return 16;
  throw new InvalidArgumentError(
    `${where}: a binary fuse filter's rate is 2^-8 or 2^-16; fpr must be at least 2^-16 (1.53e-5), got ${fpr}`,
  );
}

/** The fingerprint bits option: 8 (default) or 16. */
export function fingerprintBitsOf(where: string, bits: unknown): 8 | 16 {
  if (bits === undefined) return 8;
  if (bits !== 8 && bits !== 16) {
    throw new InvalidArgumentError(`${where}: fingerprintBits must be 8 or 16, got ${String(bits)}`);
  }
  return bits;
}

/** Refuses a build of more than {@link MAX_FUSE_KEYS} keys, before its tables are allocated. */
export function checkCount(where: string, count: number): void {
  if (count > MAX_FUSE_KEYS) {
    throw new InvalidArgumentError(
      `${where}: a build takes at most 2^27 keys (about 32 bytes a key while it builds), got ${count}`,
    );
  }
}
