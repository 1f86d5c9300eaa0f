import { type KernelScratch, KindKernelModule } from '@bloomkit/core/internal';
import { WINDOW_WASM } from './window-wasm.js';

/** window.wat, compiled on first use. */
const WINDOW = new KindKernelModule('window.wat', WINDOW_WASM);

/** window.wat compiled (null where it does not compile). */
export function windowModule(): WebAssembly.Module | null {
  return WINDOW.module();
}

/**
 * The batch kernel of a window filter (window.wat) over its ring's bits: lookups and test-and-adds of keys already
 * hashed, the ring's shape given with each call (see window.wat for the arguments and the answers). An extension of
 * core's kernel scratch (`KernelScratch`, which core's `BatchKernel` extends too): the same views and call size,
 * with entries that take the ring's shape (scale, slice bits, slices, k) and its newest slice, and a mark that
 * stops at the key that fills the generation (`room`), since the ring shifts between two keys of one batch.
 * Without it (no kernel memory, or core's switch set to 'javascript') a batch runs on the ring's own steps
 * (window-ring.ts), the single-key path's code, not a second copy of it as a loop kernel.
 */
export interface WindowKernel extends KernelScratch {
  /** answers[j] = 1 when key j is in k slices of consecutive ages, else 0; returns how many 1s. */
  probe(n: number, scale: number, sliceBits: number, slices: number, k: number, newest: number): number;
  /**
   * Test-and-add of keys in order; answers[j] = 0 (all k newest bits were set: not counted), 1 (new) or 2 (was
   * present); stops after the key that makes `room` counted keys. Returns how many keys it took.
   */
  mark(
    n: number,
    scale: number,
    sliceBits: number,
    slices: number,
    k: number,
    newest: number,
    room: number,
  ): number;
}

/**
 * The kernel of a window filter over `bits`, when they lie in a kernel memory (`newKernelBytes` of
 * `@bloomkit/core/internal` put them there; the ring is at most 2^32 bits, so every position is an unsigned 32-bit
 * integer, and k is at most 32, so a key's old bits fit one word); else undefined.
 */
export function windowKernel(bits: Uint8Array): WindowKernel | undefined {
  const instance = WINDOW.over(bits);
  if (instance === undefined) return undefined;
  return {
    hashes: instance.hashes,
    answers: instance.answers,
    keysPerCall: instance.answers.length,
    probe: KindKernelModule.entry(instance, 'probe'),
    mark: KindKernelModule.entry(instance, 'mark'),
  };
}
