import { FormatError, type KindRecord, standardLayout } from '@bloomkit/core';
import { getUint64, setUint64 } from '@bloomkit/core/internal';
import { type FuseLayout, fuseLayout } from './fuse-layout.js';

/**
 * Kind 9 of docs/FORMAT.md: a binary fuse filter, a fixed set. Its keys are hashed by MurmurHash3 x86_128
 * (algorithm 1, the envelope's seed) to 64 bits, or are the caller's 64-bit hashes (`fromHashes`), which the params
 * say. It has no Bloom layout: its record names the standard one as a placeholder, as a wrapper's does.
 */
export const fuseKind: KindRecord = {
  id: 9,
  name: 'fuse',
  className: 'BinaryFuseFilter',
  params: 'fuse',
  layout: standardLayout,
  counterWidths: [0],
};

/**
 * The params block of kind 9 (docs/FORMAT.md §3.8), 32 bytes, little-endian:
 *
 *   0  u8   fingerprint bits: 8 or 16
 *   1  u8   keys: 0, the first 64 bits of MurmurHash3 x86_128 of each key (§4); 1, the caller's 64-bit hashes
 *   2  u16  zero
 *   4  u32  segment length: a power of two in [4, 2^18]
 *   8  u32  segment count, ≥ 1
 *   12 u32  size: keys given to the build, repeats included (the reference's `Size`)
 *   16 u64  the filter's 64-bit seed (the reference's `Seed`), all 64 bits
 *   24 u64  distinct keys held, ≤ size
 *
 * Segment length and count must be what the reference's sizing gives for `size` (fuse-layout.ts), so a set has one
 * encoding. The payload is (count + 2) × length fingerprints, u8 or u16 little-endian.
 */
export const PARAMS_BYTES = 32;

/** What the params say. */
export interface FuseParams {
  readonly fingerprintBits: 8 | 16;
  /** True when the keys were the caller's 64-bit hashes (`fromHashes`): only `hasHashes` applies. */
  readonly callerHashes: boolean;
  readonly layout: FuseLayout;
  readonly seedHigh: number;
  readonly seedLow: number;
  readonly keys: number;
}

/** Writes the params block. */
export function writeParams(params: FuseParams): Uint8Array {
  const out = new Uint8Array(PARAMS_BYTES);
  const view = new DataView(out.buffer);
  view.setUint8(0, params.fingerprintBits);
  view.setUint8(1, params.callerHashes ? 1 : 0);
  view.setUint32(4, params.layout.segmentLength, true);
  view.setUint32(8, params.layout.segmentCount, true);
  view.setUint32(12, params.layout.size, true);
  view.setUint32(16, params.seedLow, true);
  view.setUint32(20, params.seedHigh, true);
  setUint64(view, 24, params.keys);
  return out;
}

/** Reads and checks the params block against the payload's length; FormatError naming the field. */
export function readParams(view: DataView, payloadLength: number, where: string): FuseParams {
  if (view.byteLength !== PARAMS_BYTES) {
    throw new FormatError(`${where}: params length must be ${PARAMS_BYTES}, got ${view.byteLength}`);
  }
  const bits = view.getUint8(0);
  if (bits !== 8 && bits !== 16)
    throw new FormatError(`${where}: fingerprint bits must be 8 or 16, got ${bits}`);
  const source = view.getUint8(1);
  if (source > 1)
    throw new FormatError(`${where}: keys must be 0 (hashed keys) or 1 (the caller's hashes), got ${source}`);
  if (view.getUint16(2, true) !== 0) throw new FormatError(`${where}: reserved params bytes 2-3 must be 0`);
  const size = view.getUint32(12, true);
  const layout = fuseLayout(size);
  const segmentLength = view.getUint32(4, true);
  const segmentCount = view.getUint32(8, true);
  if (segmentLength !== layout.segmentLength || segmentCount !== layout.segmentCount) {
    throw new FormatError(
      `${where}: a set of ${size} keys has segments of ${layout.segmentLength} slots, ${layout.segmentCount} of them; got ${segmentLength} and ${segmentCount}`,
    );
  }
  const keys = getUint64(view, 24, where, 'keys');
  if (keys > size) throw new FormatError(`${where}: keys must be at most the size ${size}, got ${keys}`);
  const expected = layout.arrayLength * (bits / 8);
  if (payloadLength !== expected) {
    throw new FormatError(
      `${where}: ${layout.arrayLength} fingerprints of ${bits} bits are ${expected} bytes, the payload is ${payloadLength}`,
    );
  }
  return {
    fingerprintBits: bits,
    callerHashes: source === 1,
    layout,
    seedLow: view.getUint32(16, true),
    seedHigh: view.getUint32(20, true),
    keys,
  };
}
