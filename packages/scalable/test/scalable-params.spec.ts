import { FormatError } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { decodeScalableParams, encodeScalableParams, SCALABLE_PARAMS_BYTES } from '../src/scalable-params.js';

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const params = {
  initialCapacity: 1000,
  fpr: 0.01,
  tightening: 0.85,
  growth: 1.5,
  filterCount: 3,
  count: 12_345,
};

describe('scalable params block', () => {
  it('round-trips and lays fields out at the documented offsets', () => {
    const bytes = encodeScalableParams(params);
    expect(bytes.length).toBe(SCALABLE_PARAMS_BYTES);
    expect(decodeScalableParams(view(bytes), 'T')).toEqual(params);
    const v = view(bytes);
    expect([
      v.getUint32(0, true),
      v.getFloat64(8, true),
      v.getFloat64(16, true),
      v.getFloat64(24, true),
      v.getUint32(32, true),
      v.getUint32(36, true),
      v.getUint32(40, true),
    ]).toEqual([1000, 0.01, 0.85, 1.5, 3, 0, 12_345]);
  });

  it('rejects out-of-range fields naming them', () => {
    const cases: [(v: DataView) => void, RegExp][] = [
      [(v) => v.setUint32(0, 0, true), /initial capacity must be at least 1/],
      [(v) => v.setFloat64(8, 0, true), /fpr must be in \(0, 1\), got 0/],
      [(v) => v.setFloat64(16, 1, true), /tightening must be in \(0, 1\), got 1/],
      [(v) => v.setFloat64(24, 1.1, true), /growth must be in \[1.125, 4\], got 1.1/],
      [(v) => v.setFloat64(24, Number.NaN, true), /growth must be in \[1.125, 4\], got NaN/],
      [(v) => v.setFloat64(24, 8, true), /growth must be in \[1.125, 4\], got 8/],
      [(v) => v.setUint32(32, 0, true), /sub-filter count must be at least 1/],
      [(v) => v.setUint32(36, 1, true), /reserved params bytes must be 0, got 1/],
    ];
    for (const [mutate, message] of cases) {
      const bytes = encodeScalableParams(params);
      mutate(view(bytes));
      expect(() => decodeScalableParams(view(bytes), 'T')).toThrow(message);
      expect(() => decodeScalableParams(view(bytes), 'T')).toThrow(FormatError);
    }
    expect(() => decodeScalableParams(view(new Uint8Array(8)), 'T')).toThrow(/params must be 48 bytes/);
  });
});
