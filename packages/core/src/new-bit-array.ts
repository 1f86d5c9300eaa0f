import { BitArray } from './bit-array.js';
import { kernelBytes } from './wasm/kernel-memory.js';

/**
 * The bit store of a new or copied-in bit filter (standard, partitioned, blocked): from 256 KiB of bits
 * (KERNEL_FROM_BYTES), `bits` bits in a kernel memory (wasm/kernel-arena.ts says which, at a 64-byte aligned place,
 * so a blocked filter's blocks are each one cache line), where the batch kernels work on them (wasm/blocked.wat
 * for the blocked layout, wasm/stride.wat for the standard and partitioned ones), holding `bytes` when given;
 * otherwise, and wherever that memory cannot be had, a BitArray as usual. Either way the same BitArray, bit for bit.
 */
export function newBitArray(bits: number, bytes?: Uint8Array | readonly Uint8Array[]): BitArray {
  const view = Number.isInteger(bits) && bits > 0 ? kernelBytes(Math.ceil(bits / 8), bytes) : undefined;
  if (view === undefined) return new BitArray(bits, bytes === undefined ? {} : { bytes });
  return new BitArray(bits, { bytes: view, copy: false });
}
