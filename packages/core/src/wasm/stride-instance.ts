import { decodeBase64 } from '../json.js';
import { type BatchKernel, instantiateOver } from './blocked-instance.js';
import { STRIDE_WASM } from './stride-wasm.js';

/** Positions one call holds (stride.wat's positions region, [24576, 65536)): n·k at most. */
const KERNEL_POSITIONS = 10_240;

/** The most keys one call takes (the hashes region holds this many). */
const KERNEL_KEYS = 1024;

let compiled: WebAssembly.Module | null | undefined;

/**
 * The kernel over `bits` for keys of `k` positions, when the bits are a view `kernelBytes` made and one key's
 * positions fit the scratch; else undefined.
 */
export function strideKernel(bits: Uint8Array, k: number): BatchKernel | undefined {
  if (k > KERNEL_POSITIONS) return undefined;
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(decodeBase64('stride.wat', STRIDE_WASM));
    } catch {
      compiled = null;
    }
  }
  const kernel = compiled === null ? undefined : instantiateOver(compiled, bits);
  if (kernel === undefined) return undefined;
  return {
    ...kernel.scratch,
    keysPerCall: Math.min(KERNEL_KEYS, Math.floor(KERNEL_POSITIONS / k)),
    probe: kernel.exports.probe as BatchKernel['probe'],
    mark: kernel.exports.mark as BatchKernel['mark'],
  };
}
