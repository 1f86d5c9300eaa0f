import { decodeBase64 } from '../json.js';
import { BLOCKED_WASM } from './blocked-wasm.js';
import { STRIDE_WASM } from './stride-wasm.js';
import { WINDOW_WASM } from './window-wasm.js';

/**
 * The batch kernels' WebAssembly modules (blocked.wat, stride.wat, window.wat), each compiled on first use and
 * kept; null where WebAssembly is missing or compiling is refused (an engine without it, a Content-Security-Policy
 * without 'wasm-unsafe-eval'), and then never tried again.
 */
let blocked: WebAssembly.Module | null | undefined;
let stride: WebAssembly.Module | null | undefined;
let window: WebAssembly.Module | null | undefined;

/** blocked.wat compiled: the kernel of blocked filters (one 512-bit block a key). */
export function blockedModule(): WebAssembly.Module | null {
  if (blocked === undefined) blocked = compile('blocked.wat', BLOCKED_WASM);
  return blocked;
}

/** stride.wat compiled: the kernel of standard, partitioned and counting filters (k positions a key). */
export function strideModule(): WebAssembly.Module | null {
  if (stride === undefined) stride = compile('stride.wat', STRIDE_WASM);
  return stride;
}

/** window.wat compiled: the kernel of window filters (a bit in each of k + l slices a key). */
export function windowModule(): WebAssembly.Module | null {
  if (window === undefined) window = compile('window.wat', WINDOW_WASM);
  return window;
}

/** True when every kernel compiles here: then bits put in a kernel memory have a kernel to run on. */
export function kernelsCompile(): boolean {
  return blockedModule() !== null && strideModule() !== null && windowModule() !== null;
}

function compile(name: string, base64: string): WebAssembly.Module | null {
  try {
    return new WebAssembly.Module(decodeBase64(name, base64));
  } catch {
    return null;
  }
}
