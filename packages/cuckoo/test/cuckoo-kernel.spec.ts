import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { hashInto } from '@bloomkit/core/kit';
import { collectionsDuring, depth, prng, urlKeys, yieldToRunner } from '@bloomkit/testkit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { setKernelBackend } from '../../core/src/kernel/backend.js';
import { CuckooProbe } from '../src/cuckoo-probe.js';
import { MAX_KICKS } from '../src/cuckoo-shape.js';
import { CapacityError, CuckooFilter, cuckooFromTable } from '../src/index.js';
import { SlotTable } from '../src/slot-table.js';
import { cuckooKernel } from '../src/wasm/cuckoo-instance.js';

/** The smallest table that goes into a kernel memory (core's KERNEL_FROM_BYTES): 256 KiB. */
const KERNEL_FROM_BYTES = 256 * 1024;

/**
 * cuckoo.wat against the JavaScript rule (CuckooProbe.javascriptMayHold: cuckoo-hash.ts and SlotTable.holdsEither;
 * an add's steps in cuckoo-walk.ts), over tables of every shape the format allows, half of the keys planted so that
 * they are present.
 */
describe('the cuckoo kernel', () => {
  afterEach(() => setKernelBackend('auto'));

  it('answers as the JavaScript rule for every fingerprint width and bucket size', () => {
    fc.assert(
      fc.property(
        fc.record({
          bits: fc.integer({ min: 4, max: 24 }),
          size: fc.constantFrom(2, 4, 8),
          extra: fc.integer({ min: 0, max: 5000 }),
          seed: fc.integer({ min: 1, max: 0x7fffffff }),
          keys: fc.integer({ min: 1, max: 3000 }),
        }),
        ({ bits, size, extra, seed, keys }) => {
          const buckets = Math.ceil((KERNEL_FROM_BYTES * 8) / (size * bits)) + extra;
          const table = SlotTable.empty(buckets * size, bits);
          expect(cuckooKernel(table.bytes)).toBeDefined();
          const random = prng(seed);
          // Random slots, a third of them empty.
          for (let slot = 0; slot < table.slots; slot += 1 + (random() % 7)) {
            table.set(slot, random() % 3 === 0 ? 0 : random() % 2 ** bits);
          }
          const probe = new CuckooProbe(table, buckets, size);
          const hashes = new Int32Array(4 * keys);
          for (let i = 0; i < hashes.length; i++) hashes[i] = random() | 0;
          // Half the keys planted: their fingerprint written into a slot of their first bucket (one no other planted
          // key has taken).
          const taken = new Set<number>();
          const planted: number[] = [];
          for (let j = 0; j < keys; j += 2) {
            const fp = ((hashes[4 * j + 1]! >>> 0) % (2 ** bits - 1)) + 1;
            const slot = ((hashes[4 * j]! >>> 0) % buckets) * size + (random() % size);
            if (taken.has(slot)) continue;
            taken.add(slot);
            table.set(slot, fp);
            planted.push(j);
          }
          // One key at a time on cuckoo.wat's `holds` (the table lies in a kernel memory) and in JavaScript.
          const expected = Array.from({ length: keys }, (_, j) => (probe.mayHold(hashes, 4 * j) ? 1 : 0));
          const written = Array.from({ length: keys }, (_, j) =>
            probe.javascriptMayHold(hashes, 4 * j) ? 1 : 0,
          );
          expect(written).toEqual(expected);
          expect(planted.filter((j) => expected[j] === 0)).toEqual([]);
          const kernel = new Uint8Array(keys + 3);
          probe.run(hashes, keys, kernel, 3);
          expect([...kernel.subarray(3)]).toEqual(expected);
          setKernelBackend('javascript');
          const script = new Uint8Array(keys);
          new CuckooProbe(table, buckets, size).run(hashes, keys, script);
          setKernelBackend('auto');
          expect([...script]).toEqual(expected);
        },
      ),
      { numRuns: depth(40) },
    );
  });

  it('places keys as JavaScript adds them, slot for slot, to the first refusal, for every bucket size', async () => {
    for (const [bucketSize, fpr, seed] of [
      [2, 0.01, 1],
      [4, 0.01, 2],
      [8, 0.01, 3],
      [2, 1e-5, 4],
      [4, 0.001, 5],
      [8, 1e-5, 6],
    ] as const) {
      // The smallest capacity whose table goes into a kernel memory at this rate, plus a few keys.
      let capacity = 20_000;
      while (CuckooFilter.create(capacity, fpr, { bucketSize }).bits / 8 < KERNEL_FROM_BYTES) capacity *= 2;
      capacity += 1000 * seed;
      const kernel = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
      const script = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
      // Keys past capacity, one in 97 a second copy of the key before it (no longer "absent before").
      const keys = urlKeys(Math.ceil(capacity * 1.2), `place-${seed}`);
      for (let i = 97; i < keys.length; i += 97) keys[i] = keys[i - 1]!;
      let refused = -1;
      for (let i = 0; i < keys.length && refused < 0; i++) {
        const onKernel = attempt(() => kernel.add(keys[i]!));
        setKernelBackend('javascript');
        const onScript = attempt(() => script.add(keys[i]!));
        setKernelBackend('auto');
        if (onKernel !== onScript) expect({ key: i, onKernel }).toEqual({ key: i, onKernel: onScript });
        if (onKernel === 'refused') refused = i;
      }
      expect(refused).toBeGreaterThan(capacity * 0.9);
      expect(kernel.size).toBe(script.size);
      expect(kernel.serialize()).toEqual(script.serialize());
      await yieldToRunner();
    }
  });

  it('adds batches as JavaScript does, walks and whole-batch refusals included, for every bucket size', async () => {
    // A table of another maker's walk length, 5,000 kicks (more than cuckoo.wat's log holds: its walks here).
    for (const [bucketSize, fpr, seed, maxKicks] of [
      [2, 0.01, 11, MAX_KICKS],
      [4, 0.001, 12, MAX_KICKS],
      [8, 1e-5, 13, MAX_KICKS],
      [4, 0.01, 14, 5000],
    ] as const) {
      let capacity = 20_000;
      while (CuckooFilter.create(capacity, fpr, { bucketSize }).bits / 8 < KERNEL_FROM_BYTES) capacity *= 2;
      const made = () => {
        const filter = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
        if (maxKicks === MAX_KICKS) return filter;
        // Read from a table's bytes (in place), then cloned: the clone's table lies in a kernel memory.
        const origin = { ...filter, maxKicks, capacity, fpr, seed };
        return cuckooFromTable(origin, new Uint8Array(filter.payloadParts()[0]!.length)).clone();
      };
      const kernel = made();
      const script = made();
      expect(kernel.maxKicks).toBe(maxKicks);
      const keys = urlKeys(Math.ceil(capacity * 1.1), `place-run-${seed}`);
      for (let i = 97; i < keys.length; i += 97) keys[i] = keys[i - 1]!;
      const hashes = new Int32Array(4 * keys.length);
      for (let i = 0; i < keys.length; i++) hashInto(keys[i]!, seed, hashes, 'test', 4 * i);
      // Batches of 3,000 keys (more than a kernel call's 1,024), to the first refused one and past it.
      let refusals = 0;
      for (let start = 0; start < keys.length; start += 3000) {
        const count = Math.min(3000, keys.length - start);
        const batch = hashes.subarray(4 * start, 4 * (start + count));
        const before = kernel.serialize();
        const answers = [new Uint8Array(count), new Uint8Array(count)];
        const onKernel = attempt(() => kernel.addHashes(batch, count, answers[0]) >= 0);
        setKernelBackend('javascript');
        const onScript = attempt(() => script.addHashes(batch, count, answers[1]) >= 0);
        setKernelBackend('auto');
        expect({ start, onKernel }).toEqual({ start, onKernel: onScript });
        if (onKernel === 'refused') {
          refusals++;
          expect(kernel.serialize()).toEqual(before);
        } else {
          expect(answers[0]).toEqual(answers[1]);
        }
        expect(kernel.size).toBe(script.size);
      }
      expect(refusals).toBeGreaterThan(0);
      expect(kernel.serialize()).toEqual(script.serialize());
      // addAll of strings takes the same path a hashed batch at a time.
      const again = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
      again.addAll(keys.slice(0, Math.floor(capacity * 0.9)));
      setKernelBackend('javascript');
      const againScript = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
      againScript.addAll(keys.slice(0, Math.floor(capacity * 0.9)));
      setKernelBackend('auto');
      expect(again.serialize()).toEqual(againScript.serialize());
      await yieldToRunner();
    }
  });

  it('deletes batches as JavaScript does (keys added once, twice, never), for every bucket size and width', async () => {
    for (const [bucketSize, fpr, seed] of [
      [2, 0.01, 21],
      [4, 0.01, 22],
      [4, 1e-5, 23],
      [8, 0.001, 24],
      [8, 1e-6, 25],
    ] as const) {
      let capacity = 20_000;
      while (CuckooFilter.create(capacity, fpr, { bucketSize }).bits / 8 < KERNEL_FROM_BYTES) capacity *= 2;
      const kernel = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
      const keys = urlKeys(capacity, `remove-run-${seed}`);
      // Every 50th key added twice, and the last tenth never added.
      const added = keys.slice(0, Math.floor(capacity * 0.8));
      for (let i = 0; i < added.length; i += 50) added.push(added[i]!);
      kernel.addAll(added);
      const script = kernel.clone();
      // Deleted in an order that meets each twice-added key twice, and every never-added one.
      const gone = [...keys].reverse();
      for (let i = 0; i < keys.length; i += 50) gone.push(keys[i]!);
      const hashes = new Int32Array(4 * gone.length);
      for (let i = 0; i < gone.length; i++) hashInto(gone[i]!, seed, hashes, 'test', 4 * i);
      for (let start = 0; start < gone.length; start += 3000) {
        const count = Math.min(3000, gone.length - start);
        const batch = hashes.subarray(4 * start, 4 * (start + count));
        const answers = [new Uint8Array(count), new Uint8Array(count)];
        const onKernel = kernel.deleteHashes(batch, count, answers[0]);
        setKernelBackend('javascript');
        const onScript = script.deleteHashes(batch, count, answers[1]);
        setKernelBackend('auto');
        expect({ start, onKernel }).toEqual({ start, onKernel: onScript });
        expect(answers[0]).toEqual(answers[1]);
        expect(kernel.size).toBe(script.size);
      }
      expect(kernel.serialize()).toEqual(script.serialize());
      // deleteAll of strings takes the same path a hashed batch at a time: the keys added, each as often, empty it.
      const filled = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
      filled.addAll(added);
      expect(filled.deleteAll(added)).toBe(added.length);
      expect(filled.size).toBe(0);
      expect(filled.serialize()).toEqual(
        CuckooFilter.create(capacity, fpr, { bucketSize, seed }).serialize(),
      );
      await yieldToRunner();
    }
  });

  it('gives a filter of 256 KiB and more the same hasMany on WebAssembly, on JavaScript and key by key', () => {
    const filter = CuckooFilter.create(250_000, 0.01, { seed: 3 });
    expect(filter.bits / 8).toBeGreaterThanOrEqual(KERNEL_FROM_BYTES);
    const keys = urlKeys(240_000, 'kernel');
    filter.addAll(keys);
    const probes = [...keys.slice(0, 20_000), ...urlKeys(20_000, 'kernel-absent')];
    const single = probes.map((key) => filter.has(key));
    expect(filter.hasMany(probes)).toEqual(single);
    // A copy read in place lies in the caller's bytes, outside any kernel memory: the JavaScript path.
    const inPlace = CuckooFilter.deserialize(filter.serialize(), { copy: false });
    expect(inPlace.hasMany(probes)).toEqual(single);
    setKernelBackend('javascript');
    expect(filter.hasMany(probes)).toEqual(single);
    expect(single.slice(0, 20_000).every(Boolean)).toBe(true);
  });
});

/** What an add answered, or 'refused' for a CapacityError. */
function attempt(add: () => boolean): boolean | 'refused' {
  try {
    return add();
  } catch (error) {
    if (error instanceof CapacityError) return 'refused';
    throw error;
  }
}

describe('a cuckoo filter in a kernel memory', () => {
  it('adds, looks up and deletes single keys with no garbage collection', async () => {
    const filter = CuckooFilter.create(500_000, 0.01);
    expect(filter.bits / 8).toBeGreaterThanOrEqual(KERNEL_FROM_BYTES);
    const keys = urlKeys(400_000, 'no-garbage');
    const probes = urlKeys(1_000, 'no-garbage-probe');
    // Warm up: compiled before the count.
    for (let i = 0; i < 20_000; i++) filter.has(probes[i % 1_000]!);
    for (let i = 0; i < 20_000; i++) filter.delete(keys[i]!);
    for (let i = 0; i < 20_000; i++) filter.add(keys[i]!);
    let found = 0;
    const collections = await collectionsDuring(() => {
      for (let i = 20_000; i < keys.length; i++) if (filter.add(keys[i]!)) found++;
      for (let i = 0; i < 1_000_000; i++) if (filter.has(probes[i % 1_000]!)) found++;
      for (let i = 0; i < 100_000; i++) if (filter.delete(keys[i]!)) found++;
    });
    // Nearly every add fresh (a few share a fingerprint and a bucket with a key before), every delete found.
    expect(found).toBeGreaterThan(470_000);
    expect(collections).toEqual([]);
  });

  it('keeps the bytes of parts a caller holds after the filter itself is gone', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const made = () => {
      const filter = CuckooFilter.create(250_000, 0.01, { seed: 9 });
      filter.addAll(urlKeys(200_000, 'kept'));
      return filter.serializeParts();
    };
    // A filter that stays keeps the arena (an arena with nothing left in it is let go whole, not reused).
    const keep = CuckooFilter.create(250_000, 0.01);
    const parts = made();
    const copy = parts.map((part) => part.slice());
    // Filters of the same size, made and held after collections: a place given back would be zeroed and reused.
    const held: CuckooFilter[] = [];
    for (let round = 0; round < 20; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 5));
      held.push(CuckooFilter.create(250_000, 0.01));
      held.at(-1)!.add(`x-${round}`);
    }
    expect(keep.size + held.length).toBe(20);
    expect(parts.every((part, i) => part.every((byte, j) => byte === copy[i]![j]))).toBe(true);
  });
});
