import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Key } from '../../src/key.js';
import { hashInto } from '../../src/murmur3.js';
import { instantiateMurmur3, WASM_BATCH_KEYS } from '../../src/wasm/murmur3-instance.js';

describe('instantiateMurmur3', () => {
  it('gives undefined where WebAssembly is missing or refused, so batches stay on JavaScript', () => {
    const saved = globalThis.WebAssembly;
    delete (globalThis as { WebAssembly?: unknown }).WebAssembly;
    try {
      expect(instantiateMurmur3()).toBeUndefined();
    } finally {
      (globalThis as { WebAssembly?: unknown }).WebAssembly = saved;
    }
    const savedModule = WebAssembly.Module;
    (WebAssembly as { Module: unknown }).Module = () => {
      throw new Error('WebAssembly.Module(): Refused to compile or instantiate WebAssembly module');
    };
    try {
      expect(instantiateMurmur3()).toBeUndefined();
    } finally {
      (WebAssembly as { Module: unknown }).Module = savedModule;
    }
  });

  it.each([
    ['murmur3-simd.wat', true],
    ['murmur3.wat (an engine without SIMD)', false],
  ])(
    'hashes ASCII strings and bytes as hashInto does with %s, and declines a batch that is not ASCII',
    (_, simd) => {
      const wasm = instantiateMurmur3({ simd })!;
      // Node 20 has WebAssembly SIMD: the vector module is the one in use unless refused.
      expect(wasm.simd).toBe(simd);
      fc.assert(
        fc.property(
          fc.array(fc.oneof(fc.string({ maxLength: 50 }), fc.uint8Array({ maxLength: 50 })), {
            maxLength: 50,
          }),
          fc.nat(0xffffffff),
          (list: Key[], seed) => {
            const count = wasm.hashKeys(list, 0, seed);
            const ascii = list.every((key) => typeof key !== 'string' || /^[\0-\x7f]*$/.test(key));
            expect(count).toBe(ascii ? list.length : 0);
            const expected = new Int32Array(4);
            for (let j = 0; j < count; j++) {
              hashInto(list[j], seed, expected, 'test');
              expect(wasm.hashes.subarray(j * 4, j * 4 + 4)).toEqual(expected);
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it.each([true, false])(
    'agrees key for key on every length and group (simd %s): blocks that differ within a group of four, keys at the end of the window',
    (simd) => {
      const wasm = instantiateMurmur3({ simd })!;
      const expected = new Int32Array(4);
      // Lengths 0 to 80 in every order within groups of four, and a batch that is not a multiple of four.
      const lengths = Array.from({ length: 1021 }, (_, j) => (j * 37 + (j >> 2) * 11) % 81);
      const list = lengths.map((length, j) => Uint8Array.from({ length }, (_, i) => (j * 131 + i * 7) & 255));
      for (const seed of [0, 1, 0x9747b28c, 0xffffffff]) {
        expect(wasm.hashKeys(list, 0, seed)).toBe(list.length);
        for (let j = 0; j < list.length; j++) {
          hashInto(list[j]!, seed, expected, 'test');
          expect(wasm.hashes.subarray(j * 4, j * 4 + 4)).toEqual(expected);
        }
      }
      // A key that ends at the window's last byte (its tail read from the slack), after a short one.
      const long = new Uint8Array(131_072 - 3).fill(0x61);
      expect(wasm.hashKeys([new Uint8Array([1, 2, 3]), long], 0, 7)).toBe(2);
      hashInto(long, 7, expected, 'test');
      expect(wasm.hashes.subarray(4, 8)).toEqual(expected);
    },
  );

  it('stops a batch at WASM_BATCH_KEYS keys, and before a key that would run past its window', () => {
    const wasm = instantiateMurmur3()!;
    expect(wasm.hashKeys(Array.from({ length: WASM_BATCH_KEYS + 5 }, String), 3, 0)).toBe(WASM_BATCH_KEYS);
    expect(wasm.hashKeys(['a', 'b', 'c'.repeat(131_071)], 0, 0)).toBe(2);
    expect(wasm.hashKeys(['c'.repeat(131_072)], 0, 0)).toBe(1);
    expect(wasm.hashKeys(['c'.repeat(131_073)], 0, 0)).toBe(0);
  });
});
