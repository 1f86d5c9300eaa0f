import { FormatError } from '@bloomkit/core';
import { getUint64, setUint64 } from '@bloomkit/core/internal';
import { MAX_GROWTH, MIN_GROWTH, type Schedule } from './schedule.js';

/**
 * The 48-byte params block of a scalable filter (kind 4, docs/FORMAT.md §3.4):
 *
 *     offset  size  field
 *     0       8     initial capacity n0, u64
 *     8       8     target fpr P, f64
 *     16      8     tightening r, f64
 *     24      8     growth g, f64 in [1.125, 4]
 *     32      4     sub-filter count F, u32
 *     36      4     reserved, 0
 *     40      8     count, u64: distinct keys added
 */
export const SCALABLE_PARAMS_BYTES = 48;

export interface ScalableParams extends Schedule {
  readonly filterCount: number;
  readonly count: number;
}

export function encodeScalableParams(params: ScalableParams): Uint8Array {
  const bytes = new Uint8Array(SCALABLE_PARAMS_BYTES);
  const view = new DataView(bytes.buffer);
  setUint64(view, 0, params.initialCapacity);
  view.setFloat64(8, params.fpr, true);
  view.setFloat64(16, params.tightening, true);
  view.setFloat64(24, params.growth, true);
  view.setUint32(32, params.filterCount, true);
  setUint64(view, 40, params.count);
  return bytes;
}

/** Decodes and range-checks the block. */
export function decodeScalableParams(view: DataView, where: string): ScalableParams {
  if (view.byteLength !== SCALABLE_PARAMS_BYTES) {
    throw new FormatError(`${where}: params must be ${SCALABLE_PARAMS_BYTES} bytes, got ${view.byteLength}`);
  }
  const initialCapacity = getUint64(view, 0, where, 'initial capacity');
  if (initialCapacity < 1) throw new FormatError(`${where}: initial capacity must be at least 1, got 0`);
  const fpr = view.getFloat64(8, true);
  if (!(fpr > 0 && fpr < 1)) throw new FormatError(`${where}: fpr must be in (0, 1), got ${fpr}`);
  const tightening = view.getFloat64(16, true);
  if (!(tightening > 0 && tightening < 1)) {
    throw new FormatError(`${where}: tightening must be in (0, 1), got ${tightening}`);
  }
  const growth = view.getFloat64(24, true);
  if (!(growth >= MIN_GROWTH && growth <= MAX_GROWTH)) {
    throw new FormatError(`${where}: growth must be in [${MIN_GROWTH}, ${MAX_GROWTH}], got ${growth}`);
  }
  const filterCount = view.getUint32(32, true);
  if (filterCount < 1) throw new FormatError(`${where}: sub-filter count must be at least 1, got 0`);
  const reserved = view.getUint32(36, true);
  if (reserved !== 0) throw new FormatError(`${where}: reserved params bytes must be 0, got ${reserved}`);
  const count = getUint64(view, 40, where, 'count');
  return { initialCapacity, fpr, tightening, growth, filterCount, count };
}
