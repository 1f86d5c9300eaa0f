import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BitArray } from '../../src/bit-array.js';
import type { Key } from '../../src/key.js';
import { newBitArray } from '../../src/new-bit-array.js';
import { decodeSingleFilter } from '../../src/single-filter-codec.js';
import { KERNEL_FROM_BYTES } from '../../src/wasm/kernel-memory.js';
import { hashesOf, onJavaScript } from '../support/batches.js';
import { inKernelMemory, storageOf } from '../support/kernel-place.js';
import { TOY_BLOCKED, TOY_PARTITIONED, TOY_STANDARD, toyBitFilterClass } from '../support/toy-filter.js';

/** The smallest filter whose bits go into a WebAssembly memory: 256 KiB. */
const KERNEL_BITS = KERNEL_FROM_BYTES * 8;

/** Byte for byte (toEqual walks a 256 KiB array element by element, far slower). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  const first = actual.findIndex((byte, i) => byte !== expected[i]);
  expect(first, 'first differing byte').toBe(-1);
}

describe('newBitArray: bits in a kernel memory from 256 KiB', () => {
  it('holds the bits of every bit layout (see the kernels below), copies what it is given, and falls back to a plain BitArray', () => {
    const payload = new Uint8Array(KERNEL_FROM_BYTES).map((_, i) => i * 7);
    const inMemory = newBitArray(KERNEL_BITS, payload);
    expect(inKernelMemory(inMemory.bitBytes!)).toBe(true);
    expectSameBytes(inMemory.bitBytes!, payload);
    expect(inMemory.bitBytes!.buffer).not.toBe(payload.buffer);
    const parts = newBitArray(KERNEL_BITS, [payload.subarray(0, 1000), payload.subarray(1000)]);
    expectSameBytes(parts.bitBytes!, payload);
    expect(inKernelMemory(newBitArray(KERNEL_BITS).bitBytes!)).toBe(true);
    expect(newBitArray(KERNEL_BITS - 512).bitBytes!.buffer.byteLength).toBe(KERNEL_FROM_BYTES - 64);
    expect(() => newBitArray(KERNEL_BITS, new Uint8Array(3))).toThrow(/bytes must hold exactly/);
  });
});

describe.each([
  ['blocked', TOY_BLOCKED],
  ['standard', TOY_STANDARD],
  ['partitioned', TOY_PARTITIONED],
] as const)('the %s batch kernel', (_name, kind) => {
  const Filter = toyBitFilterClass(kind);
  const key = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.uint8Array({ maxLength: 40 }),
  );

  it('marks and probes exactly as the JavaScript loops and add/has key by key: answers, counts and bytes', () => {
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 300 }),
        fc.array(key, { maxLength: 300 }),
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 1, max: 24 }),
        fc.nat(0xffffffff),
        (added, probed, extraBlocks, hashes, seed) => {
          const bits = KERNEL_BITS + extraBlocks * 512;
          const kernel = new Filter({ bits, hashes, seed });
          const loops = new Filter({ bits, hashes, seed });
          const single = new Filter({ bits, hashes, seed });
          expect(inKernelMemory(storageOf(kernel))).toBe(true);
          const fresh = added.filter((k) => single.add(k)).length;
          expect(kernel.addAll(added)).toBe(fresh);
          expect(onJavaScript(() => loops.addAll(added))).toBe(fresh);
          expect(kernel.count).toBe(single.count);
          expectSameBytes(kernel.serialize(), single.serialize());
          expectSameBytes(loops.serialize(), single.serialize());
          const lookups = [...probed, ...added];
          const expected = lookups.map((k) => single.has(k));
          expect(kernel.hasMany(lookups)).toEqual(expected);
          expect(onJavaScript(() => loops.hasMany(lookups))).toEqual(expected);
          const answers = new Uint8Array(lookups.length);
          kernel.hasHashes(hashesOf(lookups, seed), lookups.length, answers);
          expect([...answers]).toEqual(expected.map(Number));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('takes addHashes and hasHashes of more than one call (1,024 keys) in order, a repeated key new only once', () => {
    const seed = 99;
    const keys: Key[] = Array.from({ length: 2_500 }, (_, i) => `key-${i % 2_000}`);
    const hashes = hashesOf(keys, seed);
    const kernel = new Filter({ bits: KERNEL_BITS * 2, hashes: 8, seed });
    const loops = new Filter({ bits: KERNEL_BITS * 2, hashes: 8, seed });
    const kernelAnswers = new Uint8Array(keys.length);
    const loopAnswers = new Uint8Array(keys.length);
    const added = kernel.addHashes(hashes, keys.length, kernelAnswers);
    expect(onJavaScript(() => loops.addHashes(hashes, keys.length, loopAnswers))).toBe(added);
    expect(kernelAnswers).toEqual(loopAnswers);
    expect([...kernelAnswers.subarray(2_000)].every((a) => a === 0)).toBe(true);
    expect(kernel.count).toBe(added);
    expectSameBytes(kernel.serialize(), loops.serialize());
    kernel.hasHashes(hashes, keys.length, kernelAnswers);
    expect(kernelAnswers.every((a) => a === 1)).toBe(true);
  });

  it('keeps working on the bits of a copy and of a view: deserialized, cloned, in place', () => {
    const filter = new Filter({ bits: KERNEL_BITS, hashes: 7, seed: 5 });
    const keys = Array.from({ length: 20_000 }, (_, i) => `https://example.org/${i}`);
    const absent = Array.from({ length: 20_000 }, (_, i) => `https://example.net/${i}`);
    filter.addAll(keys);
    const bytes = filter.serialize();
    const read = (copy: boolean) => {
      const { shape, state } = decodeSingleFilter<BitArray>(kind, bytes, { copy });
      return new Filter(shape, state);
    };
    const copied = read(true);
    const viewed = read(false);
    expect(inKernelMemory(storageOf(copied))).toBe(true);
    expect(storageOf(viewed).buffer).toBe(bytes.buffer);
    const expected = filter.hasMany([...keys, ...absent]);
    const after = onJavaScript(() => {
      const reference = read(true);
      reference.addAll(absent);
      return reference.serialize();
    });
    for (const other of [copied, viewed, filter.clone()]) {
      expect(other.hasMany([...keys, ...absent])).toEqual(expected);
      other.addAll(absent);
      expectSameBytes(other.serialize(), after);
    }
  });
});
