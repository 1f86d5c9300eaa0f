import { type BatchKernel, instantiateOver, KERNEL_KEYS } from './kernel-memory.js';
import { strideModule } from './kernel-modules.js';

/** Positions one call holds (stride.wat's positions region, [24576, 65536)): n·k at most. */
const KERNEL_POSITIONS = 10_240;

/**
 * The kernel of a standard or partitioned filter over `bits` for keys of `k` positions, when the bits are a view
 * `kernelBytes` made and one key's positions fit the scratch; else undefined.
 */
export function strideKernel(bits: Uint8Array, k: number): BatchKernel | undefined {
  if (k > KERNEL_POSITIONS) return undefined;
  const module = strideModule();
  const keysPerCall = Math.min(KERNEL_KEYS, Math.floor(KERNEL_POSITIONS / k));
  return module === null ? undefined : instantiateOver(module, bits, keysPerCall);
}
