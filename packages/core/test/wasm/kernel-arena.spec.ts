import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import {
  ARENA_BYTES,
  arenaBytes,
  FIRST_ARENA_BYTES,
  liveArenas,
  memoryOf,
  placeBytes,
  SCRATCH_BYTES,
  SHARED_UP_TO,
} from '../../src/wasm/kernel-arena.js';
import { KERNEL_FROM_BYTES } from '../../src/wasm/kernel-memory.js';
import { storageOf } from '../support/kernel-place.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects until `done` holds (finalizers run as tasks of their own after a collection), at most 100 rounds. */
async function collectUntil(done: () => boolean): Promise<boolean> {
  for (let round = 0; round < 100; round++) {
    if (done()) return true;
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

/** Places `count` views of `bytes` bytes each, filled with `fill`, and returns where they were (not the views). */
function placeAndDrop(
  count: number,
  bytes: number,
  fill: number,
  place: (bytes: number) => Uint8Array | undefined = placeBytes,
): { buffer: ArrayBufferLike; start: number }[] {
  const places = [];
  for (let i = 0; i < count; i++) {
    const view = place(bytes)!;
    view.fill(fill);
    places.push({ buffer: view.buffer, start: view.byteOffset });
  }
  return places;
}

describe('kernel arenas: many filters share a memory', () => {
  it('places filters up to 1 MiB side by side in one memory, 64-byte aligned past the scratch, never overlapping', async () => {
    // A module of its own, so that its first arena is this test's.
    vi.resetModules();
    const arena = await import('../../src/wasm/kernel-arena.js');
    const sizes = [KERNEL_FROM_BYTES, 300_000, 300_001, 1_000_003, SHARED_UP_TO];
    expect(SHARED_UP_TO).toBe(2 ** 20);
    const views = sizes.map((size) => arena.placeBytes(size)!);
    const memory = arena.memoryOf(views[0]!)!;
    for (const [i, view] of views.entries()) {
      expect(view.length).toBe(sizes[i]);
      expect(arena.memoryOf(view)).toBe(memory);
      expect(view.byteOffset % 64).toBe(0);
      expect(view.byteOffset).toBeGreaterThanOrEqual(SCRATCH_BYTES);
      expect(view.every((byte) => byte === 0)).toBe(true);
      view.fill(i + 1);
    }
    const sorted = [...views].sort((a, b) => a.byteOffset - b.byteOffset);
    for (let i = 1; i < sorted.length; i++) {
      expect(sorted[i]!.byteOffset).toBeGreaterThanOrEqual(sorted[i - 1]!.byteOffset + sorted[i - 1]!.length);
    }
    for (const [i, view] of views.entries()) expect(view.every((byte) => byte === i + 1)).toBe(true);
    expect(memory.buffer.byteLength).toBe(SCRATCH_BYTES + FIRST_ARENA_BYTES);
  });

  it('makes arenas of 4 MiB, then twice the last while arenas live, up to 256 MiB', async () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 9].map((live) => arenaBytes(live) / 2 ** 20)).toEqual([
      4, 8, 16, 32, 64, 128, 256, 256, 256,
    ]);
    expect(FIRST_ARENA_BYTES).toBeGreaterThanOrEqual(SHARED_UP_TO);
    vi.resetModules();
    const arena = await import('../../src/wasm/kernel-arena.js');
    const memories: WebAssembly.Memory[] = [];
    const held: Uint8Array[] = [];
    while (memories.length < 8) {
      const view = arena.placeBytes(SHARED_UP_TO)!;
      held.push(view);
      const memory = arena.memoryOf(view)!;
      if (!memories.includes(memory)) memories.push(memory);
    }
    expect(memories.map((memory) => (memory.buffer.byteLength - SCRATCH_BYTES) / 2 ** 20)).toEqual([
      4, 8, 16, 32, 64, 128, 256, 256,
    ]);
    expect(arena.liveArenas()).toBe(8);
  });

  it('gives a filter past 1 MiB a memory of its own, exactly its size past the scratch, and a sub-view no memory', () => {
    const big = placeBytes(SHARED_UP_TO + 1)!;
    expect(big.byteOffset).toBe(SCRATCH_BYTES);
    expect(memoryOf(big)!.buffer.byteLength).toBe(
      SCRATCH_BYTES + Math.ceil((SHARED_UP_TO + 1) / 65536) * 65536,
    );
    expect(memoryOf(big.subarray(64))).toBeUndefined();
    expect(memoryOf(new Uint8Array(KERNEL_FROM_BYTES))).toBeUndefined();
  });

  it('opens a new arena when one is full, and lets every arena go once its filters are collected', async () => {
    const before = liveArenas();
    const perArena = Math.floor(ARENA_BYTES / SHARED_UP_TO);
    const places = placeAndDrop(perArena + 1, SHARED_UP_TO, 0xff);
    expect(new Set(places.map((place) => place.buffer)).size).toBeGreaterThanOrEqual(2);
    expect(liveArenas()).toBeGreaterThanOrEqual(before + 1);
    expect(await collectUntil(() => liveArenas() <= before)).toBe(true);
  });

  it('hands out copies of bytes in a shared arena, and bytes in a memory of their own or a plain array as they are', async () => {
    vi.resetModules();
    const arena = await import('../../src/wasm/kernel-arena.js');
    const shared = arena.placeBytes(300_000)!;
    shared.fill(7);
    const part = shared.subarray(64, 128);
    const out = arena.handOut(part);
    expect(out).not.toBe(part);
    expect(out.buffer).not.toBe(shared.buffer);
    expect([...out]).toEqual(new Array(64).fill(7));
    const own = arena.placeBytes(SHARED_UP_TO + 1)!;
    expect(arena.handOut(own)).toBe(own);
    expect(arena.handOut(own.subarray(5))).toEqual(own.subarray(5));
    expect(arena.handOut(own.subarray(5)).buffer).toBe(own.buffer);
    const plain = new Uint8Array(10);
    expect(arena.handOut(plain)).toBe(plain);
  });

  it('reuses a collected place, zeroed, while its arena has other filters', async () => {
    // A module of its own, so that this test alone has placed anything in its arenas.
    vi.resetModules();
    const arena = await import('../../src/wasm/kernel-arena.js');
    const keep = arena.placeBytes(KERNEL_FROM_BYTES)!;
    const [dropped] = placeAndDrop(1, 300_000, 0xab, arena.placeBytes);
    expect(dropped!.buffer).toBe(keep.buffer);
    // Until the dropped view is collected each new place comes from the arena's untouched tail (held here, so it
    // stays taken); then the returned place is the first that fits.
    const held: Uint8Array[] = [];
    const reused = await collectUntil(() => {
      const view = arena.placeBytes(300_000)!;
      held.push(view);
      return view.byteOffset === dropped!.start;
    });
    expect(reused).toBe(true);
    expect(held.at(-1)!.buffer).toBe(keep.buffer);
    expect(held.length).toBeGreaterThan(1);
    expect(held.every((view) => view.every((byte) => byte === 0))).toBe(true);
    expect(arena.liveArenas()).toBe(1);
  });

  it('gives every filter a memory of its own where the runtime has no FinalizationRegistry', async () => {
    vi.resetModules();
    vi.stubGlobal('FinalizationRegistry', undefined);
    try {
      const arena = await import('../../src/wasm/kernel-arena.js');
      const a = arena.placeBytes(KERNEL_FROM_BYTES)!;
      const b = arena.placeBytes(KERNEL_FROM_BYTES)!;
      expect([a.byteOffset, b.byteOffset]).toEqual([SCRATCH_BYTES, SCRATCH_BYTES]);
      expect(arena.memoryOf(a)).not.toBe(arena.memoryOf(b));
      expect(arena.liveArenas()).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it.each([
    ['blocked', 'TOY_BLOCKED'],
    ['standard', 'TOY_STANDARD'],
  ] as const)(
    'keeps %s filters in one arena apart: each answers for its own keys only',
    async (_name, kindName) => {
      // Modules of their own, so that the six filters are the first arena's only ones (6 × 256 KiB fit its 4 MiB).
      vi.resetModules();
      const toy = await import('../support/toy-filter.js');
      const Filter = toy.toyBitFilterClass(toy[kindName]);
      const filters = Array.from(
        { length: 6 },
        () => new Filter({ bits: KERNEL_FROM_BYTES * 8, hashes: 7, seed: 3 }),
      );
      const first = storageOf(filters[0]!);
      expect(filters.every((filter) => storageOf(filter).buffer === first.buffer)).toBe(true);
      const keys = filters.map((_, f) =>
        Array.from({ length: 5_000 }, (_, i) => `https://example.org/${f}/${i}`),
      );
      for (const [f, filter] of filters.entries()) expect(filter.addAll(keys[f]!)).toBe(5_000);
      for (const [f, filter] of filters.entries()) {
        expect(filter.hasMany(keys[f]!).every(Boolean)).toBe(true);
        const others = keys.filter((_, g) => g !== f).flat();
        // At 5,000 keys in 2 Mbit with k = 7 a filter's rate is about 1e-6: another filter's keys are absent.
        expect(filter.hasMany(others).filter(Boolean).length).toBeLessThan(5);
        const alone = new Filter({ bits: KERNEL_FROM_BYTES * 8, hashes: 7, seed: 3 });
        alone.addAll(keys[f]!);
        expect(Buffer.compare(alone.serialize(), filter.serialize())).toBe(0);
      }
    },
  );
});
