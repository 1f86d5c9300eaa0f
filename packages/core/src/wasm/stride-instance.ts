import { type BatchKernel, instantiateOver, KERNEL_KEYS, type KernelEntries } from './kernel-memory.js';
import { strideModule } from './kernel-modules.js';

/** Positions one call holds (stride.wat's positions region, [24576, 65536)): n·k at most. */
const KERNEL_POSITIONS = 10_240;

/**
 * The kernel of a standard or partitioned filter over `bits` for keys of `k` positions, when the bits are a view
 * `kernelBytes` made and one key's positions fit the scratch; else undefined.
 */
export function strideKernel(bits: Uint8Array, k: number): BatchKernel | undefined {
  return kernelOf(bits, k, undefined);
}

/** stride.wat's entries for counters of 4, 8 and 16 bits. */
const COUNTER_ENTRIES: Readonly<Record<number, KernelEntries>> = {
  4: { probe: 'probeCounters4', mark: 'markCounters4' },
  8: { probe: 'probeCounters8', mark: 'markCounters8' },
  16: { probe: 'probeCounters16', mark: 'markCounters16' },
};

/**
 * The kernel of a counting filter (the standard layout) over `counters`, `width` bits each, for keys of `k`
 * positions: as {@link strideKernel}, with counters of 4, 8 or 16 bits where it has bits; undefined for another width.
 */
export function counterKernel(counters: Uint8Array, k: number, width: number): BatchKernel | undefined {
  const entries = COUNTER_ENTRIES[width];
  return entries === undefined ? undefined : kernelOf(counters, k, entries);
}

function kernelOf(bytes: Uint8Array, k: number, entries: KernelEntries | undefined): BatchKernel | undefined {
  if (k > KERNEL_POSITIONS) return undefined;
  const module = strideModule();
  const keysPerCall = Math.min(KERNEL_KEYS, Math.floor(KERNEL_POSITIONS / k));
  return module === null ? undefined : instantiateOver(module, bytes, keysPerCall, entries);
}
