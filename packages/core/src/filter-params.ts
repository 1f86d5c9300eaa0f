import { FormatError } from './errors.js';
import { getUint64, setUint64 } from './format.js';
import { MAX_HASHES } from './params.js';
import { MAX_BITS } from './positions.js';

/**
 * The 40-byte params block of the single filters (kinds 1 standard, 2 partitioned, 3 counting, 5 blocked):
 *
 *     offset  size  field
 *     0       8     bits m, u64 (1 ≤ m ≤ 2^48)
 *     8       4     hashes k, u32 (1 ≤ k ≤ 64)
 *     12      1     counter width in bits: 0 for bit filters, 4, 8 or 16 for counting
 *     13      3     reserved, 0
 *     16      8     count, u64: adds that changed the filter
 *     24      8     capacity, u64: the n the filter was sized for, 0 when built from (m, k)
 *     32      8     fpr, f64: the target rate it was sized for, 0 when built from (m, k)
 */
export interface FilterParams {
  readonly bits: number;
  readonly hashes: number;
  readonly counterBits: number;
  readonly count: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
}

export const FILTER_PARAMS_BYTES = 40;

export function encodeFilterParams(params: FilterParams): Uint8Array {
  const bytes = new Uint8Array(FILTER_PARAMS_BYTES);
  const view = new DataView(bytes.buffer);
  setUint64(view, 0, params.bits);
  view.setUint32(8, params.hashes, true);
  view.setUint8(12, params.counterBits);
  setUint64(view, 16, params.count);
  setUint64(view, 24, params.capacity ?? 0);
  view.setFloat64(32, params.fpr ?? 0, true);
  return bytes;
}

/** Decodes and range-checks the block; `where` prefixes error messages. */
export function decodeFilterParams(view: DataView, where: string): FilterParams {
  if (view.byteLength !== FILTER_PARAMS_BYTES) {
    throw new FormatError(`${where}: params must be ${FILTER_PARAMS_BYTES} bytes, got ${view.byteLength}`);
  }
  const bits = getUint64(view, 0, where, 'bits');
  if (bits < 1 || bits > MAX_BITS) throw new FormatError(`${where}: bits must be in [1, 2^48], got ${bits}`);
  const hashes = view.getUint32(8, true);
  if (hashes < 1 || hashes > MAX_HASHES) {
    throw new FormatError(`${where}: hashes must be in [1, ${MAX_HASHES}], got ${hashes}`);
  }
  const counterBits = view.getUint8(12);
  if (view.getUint8(13) !== 0 || view.getUint16(14, true) !== 0) {
    throw new FormatError(`${where}: reserved params bytes 13-15 must be 0`);
  }
  const count = getUint64(view, 16, where, 'count');
  const capacity = getUint64(view, 24, where, 'capacity');
  const fpr = view.getFloat64(32, true);
  // -0.0 is refused: one filter must have one encoding, and the writer writes +0.0 for "none".
  if (!(fpr >= 0 && fpr < 1) || Object.is(fpr, -0))
    throw new FormatError(`${where}: fpr must be 0 (none) or in (0, 1), got ${fpr}`);
  if ((capacity === 0) !== (fpr === 0)) {
    throw new FormatError(
      `${where}: capacity and fpr must both be set or both be 0, got ${capacity} and ${fpr}`,
    );
  }
  return {
    bits,
    hashes,
    counterBits,
    count,
    capacity: capacity === 0 ? undefined : capacity,
    fpr: fpr === 0 ? undefined : fpr,
  };
}
