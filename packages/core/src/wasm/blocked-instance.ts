import { decodeBase64 } from '../json.js';
import { BLOCKED_WASM } from './blocked-wasm.js';

/** blocked.wat's memory layout (see its header): the batch's hashes, its answers, then the filter's bits. */
const HASHES_AT = 0;
const ANSWERS_AT = 16384;
const BITS_AT = 65536;
const PAGE_BYTES = 65536;

/** The most keys one call takes (the hashes region holds this many; the same as a hash batch). */
const KERNEL_KEYS = 1024;

/**
 * Bits from this many bytes go into a WebAssembly memory of their own (below, the JavaScript loops): there the
 * batch kernel pays, and few filters are this large (a memory costs ~40 µs to make and reserves ~10 GiB of address
 * space, of which a process has room for ~13,000; only the pages written take memory).
 */
export const KERNEL_FROM_BYTES: number = 256 * 1024;

/** The largest bits a memory here holds: one bit store page (2^32 bits), well inside WebAssembly's 4 GiB. */
const KERNEL_MAX_BYTES = 2 ** 29;

/** The memory each kernel-ready bits view lives in, by its buffer. */
const memories = new WeakMap<ArrayBufferLike, WebAssembly.Memory>();

let compiled: WebAssembly.Module | null | undefined;

/**
 * `byteLength` zeroed bytes at the start of a 64 KiB page of a WebAssembly memory of their own, after the kernel's
 * scratch: so every 64-byte block of a blocked filter is one cache line, and {@link blockedKernel} can work on
 * them. Undefined (the caller allocates as usual) when `byteLength` is outside [{@link KERNEL_FROM_BYTES}, 2^29],
 * or WebAssembly is missing or refused, or the memory cannot be had. The memory never grows, so the view stays
 * valid for the filter's life.
 */
export function kernelBytes(byteLength: number): Uint8Array | undefined {
  if (byteLength < KERNEL_FROM_BYTES || byteLength > KERNEL_MAX_BYTES || loadModule() === null)
    return undefined;
  const pages = Math.ceil((BITS_AT + byteLength) / PAGE_BYTES);
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined;
  }
  memories.set(memory.buffer, memory);
  return new Uint8Array(memory.buffer, BITS_AT, byteLength);
}

/**
 * A batch kernel over one filter's bits (blocked.wat, or stride.wat for the standard and partitioned layouts): its
 * two entries and the views of its scratch they read and write. Each entry takes the batch's size, two numbers of
 * the layout (blocked: the block scale and the shift of an offset in a block; stride: the reduction's scale and the
 * stride between slices) and k.
 */
export interface BatchKernel {
  /** Where a batch's h1..h4 go before a call: key j's at [4j, 4j + 4), j < keysPerCall. */
  readonly hashes: Int32Array;
  /** Where a call leaves one answer per key (1 or 0). */
  readonly answers: Uint8Array;
  /** The most keys one call takes. */
  readonly keysPerCall: number;
  /** answers[j] = all k bits of key j set; returns how many were. Touches the keys' lines first. */
  probe(n: number, scale: number, step: number, k: number): number;
  /** Sets each key's k bits in order; answers[j] = key j was new; returns how many were. Touches first too. */
  mark(n: number, scale: number, step: number, k: number): number;
}

/** The kernel over `bits`, when they are a view {@link kernelBytes} made; else undefined. */
export function blockedKernel(bits: Uint8Array): BatchKernel | undefined {
  const module = loadModule();
  const kernel = module === null ? undefined : instantiateOver(module, bits);
  if (kernel === undefined) return undefined;
  return {
    ...kernel.scratch,
    keysPerCall: KERNEL_KEYS,
    probe: kernel.exports.probe as BatchKernel['probe'],
    mark: kernel.exports.mark as BatchKernel['mark'],
  };
}

/**
 * `module` instantiated over the memory `bits` lie in, when they are a view {@link kernelBytes} made, with the views
 * of the scratch every kernel shares (the hashes and the answers); else undefined.
 */
export function instantiateOver(
  module: WebAssembly.Module,
  bits: Uint8Array,
): { exports: WebAssembly.Exports; scratch: { hashes: Int32Array; answers: Uint8Array } } | undefined {
  const memory = memories.get(bits.buffer);
  if (memory === undefined || bits.byteOffset !== BITS_AT) return undefined;
  try {
    const exports = new WebAssembly.Instance(module, { filter: { memory } }).exports;
    const hashes = new Int32Array(memory.buffer, HASHES_AT, KERNEL_KEYS * 4);
    return { exports, scratch: { hashes, answers: new Uint8Array(memory.buffer, ANSWERS_AT, KERNEL_KEYS) } };
  } catch {
    return undefined;
  }
}

function loadModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(decodeBase64('blocked.wat', BLOCKED_WASM));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}
