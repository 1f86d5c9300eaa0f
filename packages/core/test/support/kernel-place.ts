import { memoryOf, SCRATCH_BYTES } from '../../src/wasm/kernel-arena.js';

/** Whether `view` is bits kernel-arena.ts placed: in a kernel memory, 64-byte aligned past the kernels' scratch. */
export function inKernelMemory(view: Uint8Array): boolean {
  return memoryOf(view) !== undefined && view.byteOffset >= SCRATCH_BYTES && view.byteOffset % 64 === 0;
}
