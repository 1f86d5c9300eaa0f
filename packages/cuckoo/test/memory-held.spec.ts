import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { CuckooFilter } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes outside V8's heap after two full collections: WebAssembly memories and ArrayBuffers. */
function heldOutside(): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.external + usage.arrayBuffers;
}

const urls = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => `https://example.org/${tag}/${i}?page=${i * 7}`);

describe('memory held in the process', () => {
  it('a filter built from 10^6 keys holds at most 1.2x its table once the batch is done (from, addAll, union)', () => {
    const keys = urls(1_000_000, 'held');
    // The process-wide parts first (the hasher's memory, the kernel modules), so that the figure is the filter's.
    CuckooFilter.from(keys.slice(0, 5_000), 0.01).hasMany(keys.slice(0, 10));
    const before = heldOutside();
    const built = CuckooFilter.from(keys, 0.01);
    const table = built.payloadParts()[0]!.length;
    expect(table).toBeGreaterThan(1_300_000);
    // The walk's undo log of the whole batch (32 MB at 10^6 keys) was held for the filter's life before.
    expect(heldOutside() - before).toBeLessThanOrEqual(1.2 * table);

    const grown = CuckooFilter.create(1_000_000, 0.01);
    const beforeAddAll = heldOutside();
    grown.addAll(keys);
    expect(heldOutside() - beforeAddAll).toBeLessThanOrEqual(0.2 * table);

    const half = CuckooFilter.create(1_000_000, 0.01);
    half.addAll(keys.slice(0, 400_000));
    const beforeUnion = heldOutside();
    const merged = half.union(CuckooFilter.create(1_000_000, 0.01));
    expect(heldOutside() - beforeUnion).toBeLessThanOrEqual(1.2 * table);
    expect([built.size, grown.size, merged.size]).toEqual([1_000_000, 1_000_000, 400_000]);
  });
});

/** Marks a filter's flag once the filter is collected (the registry must outlive what it watches). */
const collection = new FinalizationRegistry<{ collected: boolean }>((flag) => {
  flag.collected = true;
});

/**
 * A filter of `capacity` filled to half, gone once this returns: its file, and views derived four ways from the
 * bytes it handed out (its payload part and its file's payload part). `gone` flips when the filter is collected.
 */
function viewsOfAGoneFilter(Filter: typeof CuckooFilter, capacity: number, gone: { collected: boolean }) {
  const filter = Filter.create(capacity, 0.01);
  filter.addAll(urls(capacity / 2, 'gone'));
  collection.register(filter, gone);
  const [part] = filter.payloadParts();
  const payload = filter.serializeParts()[1]!;
  return {
    file: filter.serialize(),
    views: [
      part!.subarray(0),
      new Uint8Array(part!.buffer, part!.byteOffset, part!.length),
      Buffer.from(part!.buffer, part!.byteOffset, part!.length),
      new Uint8Array(payload.buffer, payload.byteOffset, payload.length),
    ],
  };
}

describe('bytes handed out', () => {
  /** A table between 256 KiB and 1 MiB (347 KB): one that shares a kernel memory with other filters. */
  const SHARED_CAPACITY = 250_000;

  it.each([
    ['a shared kernel memory', SHARED_CAPACITY],
    ['a kernel memory of its own', 1_000_000],
    ['a plain array', 10_000],
  ])(
    'stay valid in %s whatever views are derived, after the filter is gone and others are made',
    async (_where, capacity) => {
      // A module of its own, so that its kernel memories hold this test's filters alone: the next filter of the same
      // size takes the gone one's place as soon as it is returned.
      vi.resetModules();
      const { CuckooFilter: Filter } = await import('../src/index.js');
      // A filter made first and kept: an arena whose filters are all gone is let go whole, never reused.
      const kept = Filter.create(capacity, 0.01);
      const gone = { collected: false };
      const derived = viewsOfAGoneFilter(Filter, capacity, gone);
      const copy = derived.views[0]!.slice();
      // The filter is gone (collected, so its place may go back to its arena), and other filters take places.
      const others: CuckooFilter[] = [];
      for (let round = 0; round < 100 && (!gone.collected || others.length < 20); round++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 2));
        const other = Filter.create(capacity, 0.01);
        other.addAll(urls(1_000, `other-${round}`));
        others.push(other);
      }
      expect(gone.collected).toBe(true);
      expect(kept.size + others.length).toBeGreaterThanOrEqual(20);
      for (const view of derived.views) expect(Buffer.compare(view, copy)).toBe(0);
      expect(Buffer.compare(CuckooFilter.deserialize(derived.file).payloadParts()[0]!, copy)).toBe(0);
    },
    120_000,
  );
});
