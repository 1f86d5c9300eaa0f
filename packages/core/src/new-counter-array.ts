import { CounterArray, type CounterBits } from './counter-array.js';
import { kernelBytes } from './wasm/kernel-memory.js';

/**
 * The counter store of a new or copied-in counting filter: from 256 KiB (KERNEL_FROM_BYTES), `size` counters in a
 * kernel memory (wasm/kernel-arena.ts says which), where the batch kernel (wasm/stride.wat's counter entries) works
 * on them, holding `bytes` when given; otherwise (smaller, or wherever that memory cannot be had) a CounterArray as
 * usual. Either way the same counters, byte for byte.
 */
export function newCounterArray(
  size: number,
  width: CounterBits,
  bytes?: Uint8Array | readonly Uint8Array[],
): CounterArray {
  const fits = Number.isInteger(size) && size > 0;
  const view = fits ? kernelBytes(Math.ceil((size * width) / 8), bytes) : undefined;
  if (view === undefined) return new CounterArray(size, width, bytes === undefined ? {} : { bytes });
  return new CounterArray(size, width, { bytes: view, copy: false });
}
