import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { newKernelBytes } from '@bloomkit/core/internal';
import { depth, prng, urlKeys } from '@bloomkit/testkit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { setKernelBackend } from '../../core/src/kernel/backend.js';
import { mixKey, slotsOf } from '../src/fuse-hash.js';
import { fuseLayout } from '../src/fuse-layout.js';
import { FuseProbe } from '../src/fuse-probe.js';
import { BinaryFuseFilter } from '../src/index.js';
import { OUT } from '../src/u64.js';
import { fuseKernel } from '../src/wasm/fuse-instance.js';

/** The smallest fingerprints that go into a kernel memory (core's KERNEL_FROM_BYTES): 256 KiB. */
const KERNEL_FROM_BYTES = 256 * 1024;

/**
 * fuse.wat (its batch `probe` and its one-key `contains`) against the JavaScript rule (FuseProbe.javascriptContains,
 * fuse-hash.ts and u64.ts), over random fingerprints of both widths, every seed and layouts of many sizes.
 */
describe('the fuse kernel', () => {
  afterEach(() => setKernelBackend('auto'));

  it('answers as the JavaScript rule for 8- and 16-bit fingerprints, any seed and layout', () => {
    fc.assert(
      fc.property(
        fc.record({
          wide: fc.boolean(),
          size: fc.integer({ min: 240_000, max: 3_000_000 }),
          seedHigh: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          seedLow: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          random: fc.integer({ min: 1, max: 0x7fffffff }),
          keys: fc.integer({ min: 1, max: 2500 }),
        }),
        ({ wide, size, seedHigh, seedLow, random: seed, keys }) => {
          const layout = fuseLayout(size);
          const bytes = newKernelBytes(layout.arrayLength * (wide ? 2 : 1));
          expect(bytes.length).toBeGreaterThanOrEqual(KERNEL_FROM_BYTES);
          expect(fuseKernel(bytes)).toBeDefined();
          const random = prng(seed);
          // Sparse fingerprints, so that some keys are present: most slots 0, a few random.
          for (let i = 0; i < bytes.length; i += 1 + (random() % 3))
            bytes[i] = random() % 5 === 0 ? random() : 0;
          const fingerprints = wide
            ? new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2)
            : bytes;
          const hashes = new Int32Array(4 * keys);
          for (let i = 0; i < hashes.length; i++) hashes[i] = random() | 0;
          // Half the keys planted: a slot of theirs set so that their three slots XOR to their fingerprint (slots no
          // other planted key uses).
          const taken = new Set<number>();
          const planted: number[] = [];
          const slots = new Uint32Array(3);
          const mask = wide ? 0xffff : 0xff;
          for (let j = 0; j < keys; j += 2) {
            mixKey(hashes[4 * j + 1]!, hashes[4 * j]!, seedHigh, seedLow);
            const [high, low] = [OUT[0]!, OUT[1]!];
            slotsOf(layout, high, low, slots);
            if ([...slots].some((slot) => taken.has(slot)) || new Set(slots).size < 3) continue;
            for (const slot of slots) taken.add(slot);
            fingerprints[slots[0]!] =
              ((low ^ high) & mask) ^ fingerprints[slots[1]!]! ^ fingerprints[slots[2]!]!;
            planted.push(j);
          }
          const probe = new FuseProbe(layout, seedHigh, seedLow, fingerprints, bytes);
          // One key at a time: fuse.wat's `contains` (the fingerprints lie in a kernel memory) and the JavaScript copy.
          const expected = Array.from({ length: keys }, (_, j) =>
            probe.contains(hashes[4 * j + 1]!, hashes[4 * j]!) ? 1 : 0,
          );
          const written = Array.from({ length: keys }, (_, j) =>
            probe.javascriptContains(hashes[4 * j + 1]!, hashes[4 * j]!) ? 1 : 0,
          );
          // Both give the answers of mixKey and slotsOf (FuseProbe.javascriptContains writes their arithmetic out).
          const rule = Array.from({ length: keys }, (_, j) => {
            mixKey(hashes[4 * j + 1]!, hashes[4 * j]!, seedHigh, seedLow);
            const [high, low] = [OUT[0]!, OUT[1]!];
            slotsOf(layout, high, low, slots);
            const xor = fingerprints[slots[0]!]! ^ fingerprints[slots[1]!]! ^ fingerprints[slots[2]!]!;
            return ((low ^ high) & mask) === xor ? 1 : 0;
          });
          expect(written).toEqual(rule);
          expect(expected).toEqual(rule);
          expect(planted.length).toBeGreaterThan(0);
          expect(planted.filter((j) => expected[j] === 0)).toEqual([]);
          const kernel = new Uint8Array(keys);
          probe.run(hashes, keys, kernel);
          expect([...kernel]).toEqual(expected);
          setKernelBackend('javascript');
          const script = new Uint8Array(keys);
          new FuseProbe(layout, seedHigh, seedLow, fingerprints, bytes).run(hashes, keys, script);
          setKernelBackend('auto');
          expect([...script]).toEqual(expected);
        },
      ),
      { numRuns: depth(40) },
    );
  });

  it('gives filters of 256 KiB and more the same hasMany on WebAssembly, on JavaScript, read in place and key by key', () => {
    for (const [count, fingerprintBits] of [
      [300_000, 8],
      [150_000, 16],
    ] as const) {
      const keys = urlKeys(count, `kernel-${fingerprintBits}`);
      const filter = BinaryFuseFilter.build(keys, { fingerprintBits });
      expect(filter.bits / 8).toBeGreaterThanOrEqual(KERNEL_FROM_BYTES);
      const probes = [...keys.slice(0, 20_000), ...urlKeys(20_000, `kernel-absent-${fingerprintBits}`)];
      const single = probes.map((key) => filter.has(key));
      expect(single.slice(0, 20_000).every(Boolean)).toBe(true);
      expect(filter.hasMany(probes)).toEqual(single);
      expect(filter.clone().hasMany(probes)).toEqual(single);
      // Read in place (the default) the bytes are the caller's, outside any kernel memory: the JavaScript path.
      const inPlace = BinaryFuseFilter.deserialize(filter.serialize());
      expect(inPlace.hasMany(probes)).toEqual(single);
      expect(probes.map((key) => inPlace.has(key))).toEqual(single);
      expect(BinaryFuseFilter.deserialize(filter.serialize(), { copy: true }).hasMany(probes)).toEqual(
        single,
      );
      setKernelBackend('javascript');
      expect(filter.hasMany(probes)).toEqual(single);
      expect(probes.map((key) => filter.has(key))).toEqual(single);
      setKernelBackend('auto');
    }
  });
});

describe('a fuse filter in a kernel memory', () => {
  it('keeps the bytes of parts a caller holds after the filter itself is gone', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const keys = urlKeys(300_000, 'kept');
    // A filter that stays keeps the arena (an arena with nothing left in it is let go whole, not reused).
    const keep = BinaryFuseFilter.build(keys);
    const parts = BinaryFuseFilter.build(keys, { seed: 9 }).serializeParts();
    const copy = parts.map((part) => part.slice());
    // Filters of the same size, built and held after collections: a place given back would be reused.
    const held: BinaryFuseFilter[] = [];
    for (let round = 0; round < 12; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 5));
      held.push(BinaryFuseFilter.build(keys.slice(0, 299_000), { seed: round }));
    }
    expect(keep.size + held.length).toBe(300_012);
    expect(parts.every((part, i) => part.every((byte, j) => byte === copy[i]![j]))).toBe(true);
  });
});
