import { describe, expect, it } from 'vitest';
import { KERNEL_FROM_BYTES, kernelBytes } from '../../src/wasm/blocked-instance.js';
import { strideKernel } from '../../src/wasm/stride-instance.js';

// The standard and partitioned kernels' answers and bits against the JavaScript loops and add/has key by key are
// in blocked-instance.spec.ts, with the blocked kernel's.
describe('strideKernel', () => {
  it('works on bits kernelBytes made, as many keys a call as their positions fit (10,240), never k past that', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES)!;
    expect(strideKernel(bytes, 7)!.keysPerCall).toBe(1024);
    expect(strideKernel(bytes, 10)!.keysPerCall).toBe(1024);
    expect(strideKernel(bytes, 11)!.keysPerCall).toBe(930);
    expect(strideKernel(bytes, 10_240)!.keysPerCall).toBe(1);
    expect(strideKernel(bytes, 10_241)).toBeUndefined();
    expect(strideKernel(new Uint8Array(KERNEL_FROM_BYTES), 7)).toBeUndefined();
  });

  it('probes and marks positions i*stride + floor(p(i) * scale) of the bits after its scratch', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES)!;
    const kernel = strideKernel(bytes, 3)!;
    // One key, h1 = 0, h2..h4 = 0: p(i) = 0 for every i, so the positions are 0, stride, 2 * stride.
    kernel.hashes.fill(0, 0, 4);
    expect(kernel.probe(1, 0.5, 1000, 3)).toBe(0);
    expect(kernel.mark(1, 0.5, 1000, 3)).toBe(1);
    expect([bytes[0], bytes[125], bytes[250]]).toEqual([1, 1, 1]);
    expect(kernel.answers[0]).toBe(1);
    expect(kernel.mark(1, 0.5, 1000, 3)).toBe(0);
    expect(kernel.probe(1, 0.5, 1000, 3)).toBe(1);
    // h1 = 2^31: p(0) * 2^-32 * range with range 16 is offset 8, bit 0 of byte 1.
    kernel.hashes.set([2 ** 31, 0, 0, 0]);
    expect(kernel.mark(1, 16 * 2 ** -32, 0, 1)).toBe(1);
    expect(bytes[1]).toBe(1);
  });
});
