import { FormatError } from '@bloomkit/core';
import { getUint64, setUint64 } from '@bloomkit/core/internal';
import { GROWTH_FACTORS, type Schedule } from './schedule.js';

/**
 * The 40-byte params block of a scalable filter (kind 4, docs/FORMAT.md §3.4):
 *
 *     offset  size  field
 *     0       8     initial capacity n0, u64
 *     8       8     target fpr P, f64
 *     16      8     tightening r, f64
 *     24      4     growth g, u32 (2 or 4)
 *     28      4     sub-filter count F, u32
 *     32      8     count, u64: distinct keys added
 */
export const SCALABLE_PARAMS_BYTES = 40;

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
  view.setUint32(24, params.growth, true);
  view.setUint32(28, params.filterCount, true);
  setUint64(view, 32, params.count);
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
  const growth = view.getUint32(24, true);
  if (!GROWTH_FACTORS.includes(growth as 2 | 4))
    throw new FormatError(`${where}: growth must be 2 or 4, got ${growth}`);
  const filterCount = view.getUint32(28, true);
  if (filterCount < 1) throw new FormatError(`${where}: sub-filter count must be at least 1, got 0`);
  const count = getUint64(view, 32, where, 'count');
  return { initialCapacity, fpr, tightening, growth: growth as 2 | 4, filterCount, count };
}
