import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KERNEL_FROM_BYTES, kernelBytes } from '../../src/wasm/kernel-memory.js';
import { counterKernel, strideKernel } from '../../src/wasm/stride-instance.js';
import { hashesOf, onJavaScript } from '../support/batches.js';
import { inKernelMemory, storageOf } from '../support/kernel-place.js';
import { ToyCountingFilter } from '../support/toy-filter.js';

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

  it('probes in rounds or all at once with the same answers, whatever the hits of the call before', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES)!;
    const k = 7;
    const kernel = strideKernel(bytes, k)!;
    const scale = bytes.length * 8 * 2 ** -32;
    let state = 1;
    const next = () => {
      state = (Math.imul(state, 0x2c1b3c6d) + 0x297a2d39) | 0;
      return state ^ (state >>> 15);
    };
    const keysOf = (n: number) => Int32Array.from({ length: 4 * n }, next);
    // The reference: position i from p(i) = h1 + h2*i + h3*i^2 + h4*i^3 (mod 2^32), each bit read in JavaScript.
    const held = (hashes: Int32Array, j: number): number => {
      const [h1, h2, h3, h4] = hashes.subarray(4 * j, 4 * j + 4);
      for (let i = 0; i < k; i++) {
        const p = (h1! + Math.imul(i, h2! + Math.imul(i, h3! + Math.imul(i, h4!)))) >>> 0;
        const position = Math.floor(p * scale);
        if ((bytes[position >>> 3]! & (1 << (position & 7))) === 0) return 0;
      }
      return 1;
    };
    // 20,000 keys fill the 2 Mi bits to about 7%, so an absent key is dropped in its first round or two.
    const present = keysOf(20_000);
    for (let j = 0; j < 20_000; j += 1000) {
      kernel.hashes.set(present.subarray(4 * j, 4 * (j + 1000)));
      kernel.mark(1000, scale, 0, k);
    }
    const absent = keysOf(1000);
    const mixed = new Int32Array(4000);
    for (let j = 0; j < 1000; j++)
      mixed.set((j % 3 === 0 ? absent : present).subarray(4 * j, 4 * j + 4), 4 * j);
    // Bits set in every position but the last of some absent keys: dropped only in the last round.
    const late = keysOf(1000);
    for (let j = 0; j < 1000; j += 2) {
      const [h1, h2, h3, h4] = late.subarray(4 * j, 4 * j + 4);
      for (let i = 0; i < k - 1; i++) {
        const position = Math.floor(
          ((h1! + Math.imul(i, h2! + Math.imul(i, h3! + Math.imul(i, h4!)))) >>> 0) * scale,
        );
        bytes[position >>> 3] = bytes[position >>> 3]! | (1 << (position & 7));
      }
    }
    const batches = [
      present.subarray(0, 4000),
      mixed,
      absent,
      late,
      present.subarray(4000, 8000),
      late,
      mixed,
    ];
    for (const batch of [...batches, ...[...batches].reverse()]) {
      kernel.hashes.set(batch);
      const hits = kernel.probe(1000, scale, 0, k);
      const expected = Array.from({ length: 1000 }, (_, j) => held(batch, j));
      expect([...kernel.answers.subarray(0, 1000)]).toEqual(expected);
      expect(hits).toBe(expected.reduce((sum, x) => sum + x, 0));
    }
  });
});

describe('counterKernel: the counting filter batch kernel (4-, 8- and 16-bit counters)', () => {
  const key = fc.oneof(fc.string({ maxLength: 30 }), fc.uint8Array({ maxLength: 30 }));

  it.each([4, 8, 16] as const)(
    '%i-bit counters: addAll, hasMany and hasHashes answer and count as add/has key by key, and the counters are the same bytes',
    (counterBits) => {
      fc.assert(
        fc.property(
          fc.array(key, { maxLength: 250 }),
          fc.array(key, { maxLength: 150 }),
          fc.integer({ min: 0, max: 4096 }),
          fc.integer({ min: 1, max: 24 }),
          fc.nat(0xffffffff),
          (added, probed, extra, hashes, seed) => {
            // From 256 KiB of counters (the kernel's) up; a few keys repeated past the 4-bit maximum (15).
            const bits = (KERNEL_FROM_BYTES * 8) / counterBits + extra;
            const keys = [...added, ...Array.from({ length: 20 }, () => added[0] ?? 'hot')];
            const kernel = new ToyCountingFilter({ bits, hashes, seed, counterBits });
            const loops = new ToyCountingFilter({ bits, hashes, seed, counterBits });
            const single = new ToyCountingFilter({ bits, hashes, seed, counterBits });
            expect(inKernelMemory(storageOf(kernel))).toBe(true);
            const fresh = keys.filter((k) => single.add(k)).length;
            expect(kernel.addAll(keys)).toBe(fresh);
            expect(onJavaScript(() => loops.addAll(keys))).toBe(fresh);
            expect(kernel.count).toBe(single.count);
            expect(Buffer.from(kernel.serialize()).equals(Buffer.from(single.serialize()))).toBe(true);
            expect(Buffer.from(loops.serialize()).equals(Buffer.from(single.serialize()))).toBe(true);
            const lookups = [...probed, ...keys];
            const expected = lookups.map((k) => single.has(k));
            expect(kernel.hasMany(lookups)).toEqual(expected);
            const answers = new Uint8Array(lookups.length);
            kernel.hasHashes(hashesOf(lookups, seed), lookups.length, answers);
            expect([...answers]).toEqual(expected.map(Number));
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it('16-bit counters carry into their high byte and stop at 65535, as the JavaScript loops do', () => {
    const bits = KERNEL_FROM_BYTES / 2;
    // Every counter at `value` (little-endian), so whichever counters a key has, it starts there.
    const startingAt = (value: number) => {
      const filter = new ToyCountingFilter({ bits, hashes: 5, counterBits: 16 });
      const bytes = storageOf(filter);
      for (let i = 0; i < bytes.length; i += 2) {
        bytes[i] = value & 0xff;
        bytes[i + 1] = value >>> 8;
      }
      return filter;
    };
    for (const [value, after] of [
      [255, 258],
      [65534, 65535],
    ]) {
      const kernel = startingAt(value!);
      const loops = startingAt(value!);
      expect(kernel.addAll(['k', 'k', 'k'])).toBe(0);
      expect(onJavaScript(() => loops.addAll(['k', 'k', 'k']))).toBe(0);
      expect(Buffer.from(kernel.serialize()).equals(Buffer.from(loops.serialize()))).toBe(true);
      const bytes = storageOf(kernel);
      const counters = new Set<number>();
      for (let i = 0; i < bytes.length; i += 2) counters.add(bytes[i]! | (bytes[i + 1]! << 8));
      expect(counters).toEqual(new Set([value, after]));
    }
  });

  it('exists for 4-, 8- and 16-bit counters in a kernel memory only', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES)!;
    expect(counterKernel(bytes, 7, 4)!.keysPerCall).toBe(1024);
    expect(counterKernel(bytes, 11, 8)!.keysPerCall).toBe(930);
    expect(counterKernel(bytes, 7, 16)!.keysPerCall).toBe(1024);
    expect(counterKernel(bytes, 7, 2)).toBeUndefined();
    expect(counterKernel(new Uint8Array(KERNEL_FROM_BYTES), 7, 4)).toBeUndefined();
    // From 256 KiB the counters are in a kernel memory (kernel-arena.ts); below, a plain array of their own.
    const counters = (bits: number, counterBits: 4 | 16) =>
      storageOf(new ToyCountingFilter({ bits, hashes: 7, counterBits }));
    for (const [bits, width, length] of [
      [2 * KERNEL_FROM_BYTES, 4, KERNEL_FROM_BYTES],
      [KERNEL_FROM_BYTES, 16, 2 * KERNEL_FROM_BYTES],
    ] as const) {
      const view = counters(bits, width);
      expect([view.length, inKernelMemory(view)]).toEqual([length, true]);
    }
    expect(counters(1000, 16).buffer.byteLength).toBe(2000);
    expect(counters(1000, 4).buffer.byteLength).toBe(500);
  });
});
