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

  it('hashes ASCII strings and bytes as hashInto does, and declines a batch that is not ASCII', () => {
    const wasm = instantiateMurmur3()!;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 50 }), fc.uint8Array({ maxLength: 50 })), { maxLength: 50 }),
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
  });

  it('stops a batch at WASM_BATCH_KEYS keys, and before a key that would run past its window', () => {
    const wasm = instantiateMurmur3()!;
    expect(wasm.hashKeys(Array.from({ length: WASM_BATCH_KEYS + 5 }, String), 3, 0)).toBe(WASM_BATCH_KEYS);
    expect(wasm.hashKeys(['a', 'b', 'c'.repeat(131_071)], 0, 0)).toBe(2);
    expect(wasm.hashKeys(['c'.repeat(131_072)], 0, 0)).toBe(1);
    expect(wasm.hashKeys(['c'.repeat(131_073)], 0, 0)).toBe(0);
  });
});
