import { type BatchKernel, instantiateOver, KERNEL_KEYS } from './kernel-memory.js';
import { blockedModule } from './kernel-modules.js';

/** The kernel of a blocked filter over `bits`, when they are a view `kernelBytes` made; else undefined. */
export function blockedKernel(bits: Uint8Array): BatchKernel | undefined {
  const module = blockedModule();
  return module === null ? undefined : instantiateOver(module, bits, KERNEL_KEYS);
}
