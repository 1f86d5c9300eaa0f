import { memoryOf, SCRATCH_BYTES } from '../../src/wasm/kernel-arena.js';

/** Whether `view` is bits kernel-arena.ts placed: in a kernel memory, 64-byte aligned past the kernels' scratch. */
export function inKernelMemory(view: Uint8Array): boolean {
  return memoryOf(view) !== undefined && view.byteOffset >= SCRATCH_BYTES && view.byteOffset % 64 === 0;
}

/**
 * A filter's own storage (its first page of bits or counters), where `payloadParts()` hands out a copy for storage
 * that shares a kernel memory (kernel-arena.ts, handOut): for tests that look at where the bytes lie or write them.
 */
export function storageOf(filter: object): Uint8Array {
  return (filter as { store: { pages: readonly Uint8Array[] } }).store.pages[0]!;
}
