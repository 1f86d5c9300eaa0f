import { decodeBase64 } from '../base64.js';
import { BLOCKED_WASM } from './blocked-wasm.js';
import { STRIDE_WASM } from './stride-wasm.js';

/**
 * Core's batch kernels' WebAssembly modules (blocked.wat, stride.wat), each compiled on first use and kept; null
 * where WebAssembly is missing or compiling is refused (an engine without it, a Content-Security-Policy without
 * 'wasm-unsafe-eval'), and then never tried again. A kind with a kernel of its own compiles it with
 * {@link compileKernel} and keeps it the same way.
 */
let blocked: WebAssembly.Module | null | undefined;
let stride: WebAssembly.Module | null | undefined;

/** blocked.wat compiled: the kernel of blocked filters (one 512-bit block a key). */
export function blockedModule(): WebAssembly.Module | null {
  if (blocked === undefined) blocked = compileKernel('blocked.wat', BLOCKED_WASM);
  return blocked;
}

/** stride.wat compiled: the kernel of standard, partitioned and counting filters (k positions a key). */
export function strideModule(): WebAssembly.Module | null {
  if (stride === undefined) stride = compileKernel('stride.wat', STRIDE_WASM);
  return stride;
}

/**
 * True when core's kernels compile here: then bits put in a kernel memory have a kernel to run on. (A kind's own
 * kernel that does not compile leaves its filters on their JavaScript loops, over the same bytes.)
 */
export function kernelsCompile(): boolean {
  return blockedModule() !== null && strideModule() !== null;
}

/**
 * A kernel module from its bytes in base64 (a `NAME-wasm.ts` that scripts/build-wasm.mjs wrote from `name`), or
 * null where WebAssembly is missing or refuses to compile it. The caller keeps the result: compiling is not cached
 * here.
 */
export function compileKernel(name: string, base64: string): WebAssembly.Module | null {
  try {
    return new WebAssembly.Module(decodeBase64(name, base64));
  } catch {
    return null;
  }
}
