import { FormatError, type KindRecord, standardLayout } from '@bloomkit/core';
import { getUint64, setUint64 } from '@bloomkit/core/internal';
import {
  BUCKET_SIZES,
  type BucketSize,
  type CuckooShape,
  MAX_BUCKETS,
  MAX_FINGERPRINT_BITS,
  MAX_TABLE_BYTES,
  MIN_FINGERPRINT_BITS,
} from './cuckoo-shape.js';
import { SlotTable } from './slot-table.js';

/**
 * Kind 10 of docs/FORMAT.md: a cuckoo filter. Keys are hashed by MurmurHash3 x86_128 (algorithm 1, the envelope's
 * seed). It has no Bloom layout: its record names the standard one as a placeholder, as a wrapper's does.
 */
export const cuckooKind: KindRecord = {
  id: 10,
  name: 'cuckoo',
  className: 'CuckooFilter',
  params: 'cuckoo',
  layout: standardLayout,
  counterWidths: [0],
};

/**
 * The params block of kind 10 (docs/FORMAT.md §3.9), 32 bytes, little-endian:
 *
 *   0  u8   fingerprint bits f, in [4, 24]
 *   1  u8   bucket size b: 2, 4 or 8
 *   2  u16  max kicks: the length of an add's walk before it gives up, ≥ 1 (writers: 500)
 *   4  u32  buckets n, in [1, 2^31 − 1]
 *   8  u64  capacity: the keys the table was sized for, ≥ 1
 *   16 f64  target rate at capacity, in (0, 1)
 *   24 u64  fingerprints held: the slots that are not 0
 *
 * The payload is ⌈n · b · f / 8⌉ bytes: the n · b slots packed (slot-table.ts), the pad bits after them 0.
 */
export const PARAMS_BYTES = 32;

/** What the params say. */
export interface CuckooParams extends CuckooShape {
  readonly maxKicks: number;
  readonly capacity: number;
  readonly fpr: number;
  readonly held: number;
}

/** Writes the params block. */
export function writeParams(params: CuckooParams): Uint8Array {
  const out = new Uint8Array(PARAMS_BYTES);
  const view = new DataView(out.buffer);
  view.setUint8(0, params.fingerprintBits);
  view.setUint8(1, params.bucketSize);
  view.setUint16(2, params.maxKicks, true);
  view.setUint32(4, params.buckets, true);
  setUint64(view, 8, params.capacity);
  view.setFloat64(16, params.fpr, true);
  setUint64(view, 24, params.held);
  return out;
}

/**
 * Reads and checks the params block against the payload's length (before anything is allocated); FormatError
 * naming the field. The held count is checked against the slots later, once the payload is at hand.
 */
export function readParams(view: DataView, payloadLength: number, where: string): CuckooParams {
  if (view.byteLength !== PARAMS_BYTES) {
    throw new FormatError(`${where}: params length must be ${PARAMS_BYTES}, got ${view.byteLength}`);
  }
  const bits = view.getUint8(0);
  if (bits < MIN_FINGERPRINT_BITS || bits > MAX_FINGERPRINT_BITS) {
    throw new FormatError(
      `${where}: fingerprint bits must be in [${MIN_FINGERPRINT_BITS}, ${MAX_FINGERPRINT_BITS}], got ${bits}`,
    );
  }
  const bucketSize = view.getUint8(1);
  if (!(BUCKET_SIZES as readonly number[]).includes(bucketSize)) {
    throw new FormatError(`${where}: bucket size must be 2, 4 or 8, got ${bucketSize}`);
  }
  const maxKicks = view.getUint16(2, true);
  if (maxKicks === 0) throw new FormatError(`${where}: max kicks must be at least 1, got 0`);
  const buckets = view.getUint32(4, true);
  if (buckets === 0 || buckets > MAX_BUCKETS) {
    throw new FormatError(`${where}: buckets must be in [1, 2^31 - 1], got ${buckets}`);
  }
  const capacity = getUint64(view, 8, where, 'capacity');
  if (capacity === 0) throw new FormatError(`${where}: capacity must be at least 1, got 0`);
  const fpr = view.getFloat64(16, true);
  if (!(fpr > 0 && fpr < 1)) throw new FormatError(`${where}: target rate must be in (0, 1), got ${fpr}`);
  const slots = buckets * bucketSize;
  const held = getUint64(view, 24, where, 'fingerprints held');
  if (held > slots) {
    throw new FormatError(`${where}: fingerprints held must be at most the ${slots} slots, got ${held}`);
  }
  const expected = SlotTable.payloadBytesOf(slots, bits);
  if (expected > MAX_TABLE_BYTES) {
    throw new FormatError(
      `${where}: a table of ${expected} bytes is past the most a cuckoo filter holds (2 GiB)`,
    );
  }
  if (payloadLength !== expected) {
    throw new FormatError(
      `${where}: ${slots} slots of ${bits} bits are ${expected} bytes, the payload is ${payloadLength}`,
    );
  }
  return {
    fingerprintBits: bits,
    bucketSize: bucketSize as BucketSize,
    maxKicks,
    buckets,
    capacity,
    fpr,
    held,
  };
}
