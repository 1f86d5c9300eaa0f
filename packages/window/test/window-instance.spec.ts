import { newKernelBytes } from '@bloomkit/core/internal';
import { depth } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { windowKernel, windowModule } from '../src/wasm/window-instance.js';

/** fast-check runs per property: 300, a quarter in `pnpm test:quick`. */
const RUNS = depth(300);

/** The smallest bits that go into a kernel memory (core's KERNEL_FROM_BYTES): 256 KiB. */
const KERNEL_FROM_BYTES = 256 * 1024;

/** `byteLength` zero bytes in a kernel memory. */
function kernelBytes(byteLength: number): Uint8Array {
  const bytes = newKernelBytes(byteLength);
  // A plain array starts its own buffer; a kernel memory's view lies past the kernels' scratch.
  if (bytes.byteOffset === 0) throw new Error('newKernelBytes gave a plain array: no kernel memory here');
  return bytes;
}

/** A ring's shape as window.wat takes it. */
interface Ring {
  readonly k: number;
  readonly slices: number;
  readonly s: number;
  readonly newest: number;
}

/** The reference: the key's bit in slice j at j*s + floor(p(j) * s * 2^-32), p(j) the cubic of FORMAT.md §5. */
function positionOf(hashes: Int32Array, key: number, j: number, s: number): number {
  const [h1, h2, h3, h4] = hashes.subarray(4 * key, 4 * key + 4);
  const p = (h1! + Math.imul(j, h2! + Math.imul(j, h3! + Math.imul(j, h4!)))) >>> 0;
  return j * s + Math.floor(p * (s * 2 ** -32));
}

/** The key's bit in each slice, by age (0 the newest). */
function bitsByAge(bytes: Uint8Array, hashes: Int32Array, key: number, ring: Ring): number[] {
  const out: number[] = [];
  for (let age = 0; age < ring.slices; age++) {
    const position = positionOf(hashes, key, (ring.newest + age) % ring.slices, ring.s);
    out.push((bytes[position >>> 3]! >>> (position & 7)) & 1);
  }
  return out;
}

/** True when k consecutive ages hold the bit: the definition, by a plain scan. */
function hasRun(bits: readonly number[], k: number): boolean {
  let run = 0;
  for (const bit of bits) {
    run = bit === 1 ? run + 1 : 0;
    if (run >= k) return true;
  }
  return false;
}

const ring = fc
  .record({
    k: fc.integer({ min: 1, max: 32 }),
    l: fc.integer({ min: 1, max: 16 }),
    fill: fc.double({ min: 0, max: 0.9, noNaN: true }),
  })
  .chain(({ k, l, fill }) =>
    fc.record({
      k: fc.constant(k),
      slices: fc.constant(k + l),
      // Slices of 64 to 2,048 bits: few enough bits that runs of set bits are common at high fills.
      s: fc.integer({ min: 1, max: 32 }).map((units) => units * 64),
      newest: fc.integer({ min: 0, max: k + l - 1 }),
      fill: fc.constant(fill),
      seed: fc.integer(),
    }),
  );

/** One kernel memory for the properties: each run refills the bits its ring uses. */
const shared = kernelBytes(KERNEL_FROM_BYTES);
const sharedKernel = windowKernel(shared)!;

/** The kernel with about `fill` of the ring's bits set, and `n` random hashes in its scratch. */
function setUp(shape: Ring & { fill: number; seed: number }, n: number) {
  let state = shape.seed | 1;
  const next = () => {
    state = (Math.imul(state, 0x2c1b3c6d) + 0x297a2d39) | 0;
    return state ^ (state >>> 15);
  };
  const used = (shape.slices * shape.s) / 8;
  for (let i = 0; i < used; i++) {
    let byte = 0;
    for (let b = 0; b < 8; b++) if ((next() >>> 0) / 2 ** 32 < shape.fill) byte |= 1 << b;
    shared[i] = byte;
  }
  for (let i = 0; i < 4 * n; i++) sharedKernel.hashes[i] = next();
  return { bytes: shared, kernel: sharedKernel, hashes: sharedKernel.hashes.slice(0, 4 * n) };
}

describe('windowKernel', () => {
  it("compiles window.wat here, with core's kernel memory map", () => {
    expect(windowModule()).toBeInstanceOf(WebAssembly.Module);
    const { exports } = new WebAssembly.Instance(windowModule()!, {
      filter: { memory: new WebAssembly.Memory({ initial: 2 }) },
    });
    const map = ['hashesAt', 'answersAt', 'keysMax', 'scratchBytes'].map(
      (name) => (exports[name] as WebAssembly.Global).value,
    );
    expect(map).toEqual([0, 16384, 1024, 65536]);
  });

  it('works only on bits in a kernel memory', () => {
    expect(windowKernel(kernelBytes(KERNEL_FROM_BYTES))!.keysPerCall).toBe(1024);
    expect(windowKernel(new Uint8Array(KERNEL_FROM_BYTES))).toBeUndefined();
  });

  it('probe answers whether k consecutive ages hold the key, as a plain scan of every slice does', () => {
    fc.assert(
      fc.property(ring, (shape) => {
        const n = 64;
        const { bytes, kernel, hashes } = setUp(shape, n);
        const expected = Array.from({ length: n }, (_, j) =>
          hasRun(bitsByAge(bytes, hashes, j, shape), shape.k) ? 1 : 0,
        );
        const before = bytes.slice(0, (shape.slices * shape.s) / 8);
        const yes = kernel.probe(n, shape.s * 2 ** -32, shape.s, shape.slices, shape.k, shape.newest);
        expect(Array.from(kernel.answers.subarray(0, n))).toEqual(expected);
        expect(yes).toBe(expected.filter((a) => a === 1).length);
        expect(bytes.subarray(0, before.length)).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('mark sets the k newest bits of each key in order, answers 0 / 1 / 2, and stops when room keys counted', () => {
    fc.assert(
      fc.property(ring, fc.integer({ min: 1, max: 80 }), (shape, room) => {
        const n = 64;
        const { bytes, kernel, hashes } = setUp(shape, n);
        const reference = bytes.slice(0, (shape.slices * shape.s) / 8);
        const expected: number[] = [];
        let counted = 0;
        for (let j = 0; j < n && counted < room; j++) {
          const bits = bitsByAge(reference, hashes, j, shape);
          for (let age = 0; age < shape.k; age++) {
            const position = positionOf(hashes, j, (shape.newest + age) % shape.slices, shape.s);
            reference[position >>> 3]! |= 1 << (position & 7);
          }
          if (bits.slice(0, shape.k).every((bit) => bit === 1)) expected.push(0);
          else {
            expected.push(hasRun(bits, shape.k) ? 2 : 1);
            counted++;
          }
        }
        const took = kernel.mark(n, shape.s * 2 ** -32, shape.s, shape.slices, shape.k, shape.newest, room);
        expect(took).toBe(expected.length);
        expect(Array.from(kernel.answers.subarray(0, took))).toEqual(expected);
        expect(bytes.subarray(0, reference.length)).toEqual(reference);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a slice wrapped past the last as the ring does: age a is slice (newest + a) mod (k + l)', () => {
    const bytes = kernelBytes(KERNEL_FROM_BYTES);
    const kernel = windowKernel(bytes)!;
    // h1..h4 = 0: the key's bit is bit 0 of every slice. k = 2, 3 slices of 64 bits, newest 2: ages 0, 1 are
    // slices 2 and 0.
    kernel.hashes.fill(0, 0, 4);
    expect(kernel.mark(1, 64 * 2 ** -32, 64, 3, 2, 2, 1)).toBe(1);
    expect(kernel.answers[0]).toBe(1);
    expect([bytes[0], bytes[8], bytes[16]]).toEqual([1, 0, 1]);
    expect(kernel.probe(1, 64 * 2 ** -32, 64, 3, 2, 2)).toBe(1);
    // From newest 1, ages 0..2 are slices 1, 2, 0: bits 0, 1, 1, a run of 2 at ages 1 and 2.
    expect(kernel.probe(1, 64 * 2 ** -32, 64, 3, 2, 1)).toBe(1);
    // From newest 0: slices 0, 1, 2 hold 1, 0, 1: no run of 2.
    expect(kernel.probe(1, 64 * 2 ** -32, 64, 3, 2, 0)).toBe(0);
    expect(kernel.mark(1, 64 * 2 ** -32, 64, 3, 2, 2, 1)).toBe(1);
    expect(kernel.answers[0]).toBe(0);
  });
});
