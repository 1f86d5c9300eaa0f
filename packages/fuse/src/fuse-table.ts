import { InvalidArgumentError } from '@bloomkit/core';
import { encodeNestedParts, joinParts, resolveSeed } from '@bloomkit/core/internal';
import { checkInteger } from '@bloomkit/core/kit';
import { BinaryFuseFilter } from './binary-fuse-filter.js';
import { fuseKind, writeParams } from './fuse-codec.js';
import { fuseLayout } from './fuse-layout.js';

/** What {@link fuseFromTable} builds a filter with: what a filter's `reference()` and fields say of it. */
export interface FuseTableOrigin {
  /** Bits of a fingerprint: 8 or 16. */
  readonly fingerprintBits: 8 | 16;
  /** The reference's `Size`: the keys the build was given, repeats included (its layout follows from it). */
  readonly size: number;
  /** Distinct keys held (at most `size`). */
  readonly keys: number;
  /** The reference's 64-bit `Seed` of the key mixing. */
  readonly seed: bigint;
  /** MurmurHash3's 32-bit seed that hashed the keys. */
  readonly hashSeed: number;
}

/**
 * A filter over a fingerprint array's bytes: the payload of docs/FORMAT.md §3.8 (as `payloadParts()` gives it and
 * `@bloomkit/redis` keeps it), with the size, seeds and key count of the filter it came from. Checked as a file's
 * params and payload are (the length must be the layout's of `size`; FormatError otherwise), then read from a copy.
 * A filter of keys (not of the caller's hashes: those are not kept apart from their file).
 */
export function fuseFromTable(origin: FuseTableOrigin, bytes: Uint8Array): BinaryFuseFilter {
  const where = 'fuseFromTable';
  const size = checkInteger(where, 'size', origin.size, 0, 2 ** 32 - 1);
  const keys = checkInteger(where, 'keys', origin.keys, 0, size);
  if (typeof origin.seed !== 'bigint' || origin.seed < 0n || origin.seed >= 1n << 64n) {
    throw new InvalidArgumentError(
      `${where}: seed must be a bigint in [0, 2^64), got ${String(origin.seed)}`,
    );
  }
  const params = writeParams({
    fingerprintBits: origin.fingerprintBits,
    callerHashes: false,
    layout: fuseLayout(size),
    seedHigh: Number(origin.seed >> 32n),
    seedLow: Number(origin.seed & 0xffffffffn),
    keys,
  });
  const parts = encodeNestedParts(fuseKind, resolveSeed(where, origin.hashSeed), params, [bytes]);
  return BinaryFuseFilter.deserialize(joinParts(fuseKind, parts), { copy: true });
}
