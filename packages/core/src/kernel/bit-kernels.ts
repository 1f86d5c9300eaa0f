import { blockOf, reduceNarrow } from '../narrow.js';
import { blockedKernel } from '../wasm/blocked-instance.js';
import type { BatchKernel } from '../wasm/kernel-memory.js';
import { counterKernel, strideKernel } from '../wasm/stride-instance.js';

/**
 * Batches of hashed keys on the bit and counter kernels (wasm/blocked.wat, wasm/stride.wat): which kernel a single
 * filter's store gets; and the touch pass the JavaScript loops (loop-kernel.ts) run before a batch.
 */

/** The blocked kernel's block: 512 bits, so a slot's offset in its block is p(i) >>> (32 − 9). */
export const KERNEL_SHIFT = 23;

/**
 * Bytes of bits from which a batch on the JavaScript loops touches its keys' lines before marking or probing them
 * (the WebAssembly kernel always does: see `run` in wasm/kernel-memory.ts). Below, the lines are in cache or near it and the
 * extra loads cost about what they save. Measured with blocked filters, addAll/hasMany in batches of 4,096 URL
 * keys, touch forced on and off in one build: 10^6 keys (1.2 MB) 8.4/9.7 and 5.4/6.3 M/s on, 8.8/9.4 and 8.1/8.1
 * off; 10^7 keys (12 MB) 4.5/4.2 on, 3.5/3.5 off.
 */
export const TOUCH_FROM_BYTES: number = 4 * 1024 * 1024;

/** What the kernel choice reads of a single filter: its store and the layout numbers the engine derived. */
export interface KernelTarget {
  /** One page of bits, else undefined. */
  readonly bitBytes: Uint8Array | undefined;
  /** The counters' width, 0 for bits. */
  readonly counterBits: number;
  /** The store's pages (counters: one page is what the kernel takes). */
  readonly pages: readonly Uint8Array[];
  /** k. */
  readonly hashes: number;
  /** Every range ≤ 2^32 (the narrow path). */
  readonly narrow: boolean;
  /** blocks × 2^-32, 0 for one block (standard, partitioned, counting). */
  readonly blockScale: number;
  /** 32 − log2(B) for a blocked one-page bit store, else 0. */
  readonly blockShift: number;
}

/**
 * The kernel for a single filter: blocked.wat for a blocked one-page bit store of 512-bit blocks, stride.wat for a
 * narrow standard or partitioned one, stride.wat's counter entries for one page of counters; undefined otherwise
 * (and where the bits are not in a kernel memory, or the module does not compile here).
 */
export function bitKernelFor(target: KernelTarget): BatchKernel | undefined {
  const { bitBytes, narrow, blockScale } = target;
  if (bitBytes !== undefined && target.blockShift === KERNEL_SHIFT) return blockedKernel(bitBytes);
  if (!narrow || blockScale !== 0) return undefined;
  if (bitBytes !== undefined) return strideKernel(bitBytes, target.hashes);
  if (target.counterBits !== 0 && target.pages.length === 1) {
    return counterKernel(target.pages[0]!, target.hashes, target.counterBits);
  }
  return undefined;
}

/**
 * Reads the byte of the first slot of each of `count` hashed keys (a blocked key's block, a standard key's first
 * position): independent loads the processor keeps in flight together, so the marks and probes that follow find
 * their lines in cache. Returns the OR of what it read (the caller keeps it so the loads are not dropped). For one
 * page of bits on the narrow path, from {@link TOUCH_FROM_BYTES}; the caller checks that.
 */
export function touchFirstSlots(
  bytes: Uint8Array,
  hashes: Int32Array,
  count: number,
  scale: number,
  blockScale: number,
  blockBits: number,
): number {
  let read = 0;
  if (blockScale !== 0) {
    // A block is 64 bytes, but the bytes' buffer is not 64-byte aligned (allocators align to 16), so a block spans
    // two cache lines: touch its first and its last byte.
    const blockBytes = blockBits >>> 3;
    const last = blockBytes - 1;
    for (let j = 0; j < count * 4; j += 4) {
      const at = blockOf(hashes[j]!, hashes[j + 1]!, hashes[j + 2]!, hashes[j + 3]!, blockScale) * blockBytes;
      read |= bytes[at]! | bytes[at + last]!;
    }
  } else {
    for (let j = 0; j < count * 4; j += 4) read |= bytes[reduceNarrow(hashes[j]! >>> 0, scale) >>> 3]!;
  }
  return read;
}
