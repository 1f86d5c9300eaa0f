import { compileKernel, instanceOver } from '@bloomkit/core/internal';
import { WINDOW_WASM } from './window-wasm.js';

/** window.wat compiled on first use and kept; null where it does not compile (then never tried again). */
let module: WebAssembly.Module | null | undefined;

/** window.wat compiled (see {@link module}). */
export function windowModule(): WebAssembly.Module | null {
  if (module === undefined) module = compileKernel('window.wat', WINDOW_WASM);
  return module;
}

/**
 * The batch kernel of a window filter (window.wat) over its ring's bits: lookups and test-and-adds of keys already
 * hashed, the ring's shape given with each call (see window.wat for the arguments and the answers).
 */
export interface WindowKernel {
  /** Where a batch's h1..h4 go before a call: key j's at [4j, 4j + 4), j < keysPerCall. */
  readonly hashes: Int32Array;
  /** Where a call leaves one answer per key. */
  readonly answers: Uint8Array;
  /** The most keys one call takes. */
  readonly keysPerCall: number;
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
  const compiled = windowModule();
  if (compiled === null) return undefined;
  const instance = instanceOver(compiled, bits);
  if (instance === undefined) return undefined;
  const probe = instance.exports.probe as WindowKernel['probe'];
  const mark = instance.exports.mark as WindowKernel['mark'];
  const { at, offset } = instance;
  return {
    hashes: instance.hashes,
    answers: instance.answers,
    keysPerCall: instance.answers.length,
    probe(n, scale, sliceBits, slices, k, newest) {
      at.value = offset;
      return probe(n, scale, sliceBits, slices, k, newest);
    },
    mark(n, scale, sliceBits, slices, k, newest, room) {
      at.value = offset;
      return mark(n, scale, sliceBits, slices, k, newest, room);
    },
  };
}
