import { BitArray } from './bit-array.js';
import type { Layout } from './layout.js';
import { blockedLayout } from './layouts/blocked.js';
import { copyPagesTo } from './pages.js';
import { lengthOf } from './parts.js';
import { kernelBytes } from './wasm/blocked-instance.js';

/**
 * The bit store of a new or copied-in filter of `layout`: for the blocked layout from 256 KiB of bits (KERNEL_FROM_BYTES),
 * `bits` bits in a WebAssembly memory of their own (page-aligned, so every block is one cache line, and the batch
 * kernel, wasm/blocked.wat, works on them), holding `bytes` when given; otherwise, and wherever that memory cannot
 * be had, a BitArray as usual. Either way the same BitArray, bit for bit.
 */
export function newBitArray(
  layout: Layout,
  bits: number,
  bytes?: Uint8Array | readonly Uint8Array[],
): BitArray {
  const byteLength = Math.ceil(bits / 8);
  const fits =
    layout === blockedLayout &&
    Number.isInteger(bits) &&
    bits > 0 &&
    (bytes === undefined || lengthOf(bytes) === byteLength);
  const view = fits ? kernelBytes(byteLength) : undefined;
  if (view === undefined) return new BitArray(bits, bytes === undefined ? {} : { bytes });
  if (bytes !== undefined) copyPagesTo(bytes instanceof Uint8Array ? [bytes] : bytes, view, 0);
  return new BitArray(bits, { bytes: view, copy: false });
}
