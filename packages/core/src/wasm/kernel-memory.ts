import { copyPagesTo } from '../pages.js';
import { lengthOf } from '../parts.js';
import { kernelsCompile } from './kernel-modules.js';

/**
 * The memory every batch kernel works in (blocked.wat and stride.wat share its first page; see their headers): the
 * batch's hashes, its answers, the kernel's own scratch, then the filter's bits from the second page on.
 */
const HASHES_AT = 0;
const ANSWERS_AT = 16384;
const BITS_AT = 65536;
const PAGE_BYTES = 65536;

/** The most keys the hashes and answers regions hold (a kernel may take fewer a call: BatchKernel.keysPerCall). */
export const KERNEL_KEYS = 1024;

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

/**
 * `byteLength` bytes at the start of a 64 KiB page of a WebAssembly memory of their own, after the kernel's
 * scratch: so every 64-byte block of a blocked filter is one cache line, and a kernel ({@link instantiateOver}) can
 * work on them. They hold a copy of `contents` when given (one array or parts, `byteLength` bytes in all), else
 * zeros. Undefined (the caller allocates as usual) when `byteLength` is outside [{@link KERNEL_FROM_BYTES}, 2^29]
 * or is not the length of `contents`, or the kernels do not compile here, or the memory cannot be had. The memory
 * never grows, so the view stays valid for the filter's life.
 */
export function kernelBytes(
  byteLength: number,
  contents?: Uint8Array | readonly Uint8Array[],
): Uint8Array | undefined {
  if (byteLength < KERNEL_FROM_BYTES || byteLength > KERNEL_MAX_BYTES || !kernelsCompile()) return undefined;
  if (contents !== undefined && lengthOf(contents) !== byteLength) return undefined;
  const pages = Math.ceil((BITS_AT + byteLength) / PAGE_BYTES);
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined;
  }
  memories.set(memory.buffer, memory);
  const view = new Uint8Array(memory.buffer, BITS_AT, byteLength);
  if (contents !== undefined) copyContents(contents, view);
  return view;
}

/**
 * {@link kernelBytes} where it gives bytes, else a plain array of `byteLength` bytes: zeros, or a copy of
 * `contents` (one array or parts, `byteLength` bytes in all). Either way the caller owns the bytes.
 */
export function newKernelBytes(
  byteLength: number,
  contents?: Uint8Array | readonly Uint8Array[],
): Uint8Array {
  const view = kernelBytes(byteLength, contents);
  if (view !== undefined) return view;
  const bytes = new Uint8Array(byteLength);
  if (contents !== undefined) copyContents(contents, bytes);
  return bytes;
}

/** Copies one array or parts, in order, to the start of `to`. */
function copyContents(contents: Uint8Array | readonly Uint8Array[], to: Uint8Array): void {
  copyPagesTo(contents instanceof Uint8Array ? [contents] : contents, to, 0);
}

/**
 * A batch kernel over one filter's bits or counters (blocked.wat; stride.wat for the standard and partitioned
 * layouts, and for a counting filter's counters of each width): its two entries and the views of its scratch they
 * read and write. Each entry takes the batch's size, two numbers of the layout (blocked: the block scale and the
 * shift of an offset in a block; stride: the reduction's scale and the stride between slices) and k.
 */
export interface BatchKernel {
  /** Where a batch's h1..h4 go before a call: key j's at [4j, 4j + 4), j < keysPerCall. */
  readonly hashes: Int32Array;
  /** Where a call leaves one answer per key (1 or 0). */
  readonly answers: Uint8Array;
  /** The most keys one call takes. */
  readonly keysPerCall: number;
  /** answers[j] = all k bits (counters: all k non-zero) of key j set; returns how many were. Touches first. */
  probe(n: number, scale: number, step: number, k: number): number;
  /** Sets each key's k bits in order; answers[j] = key j was new; returns how many were. Touches first too. */
  mark(n: number, scale: number, step: number, k: number): number;
}

/** The names of a module's two batch entries (stride.wat has one pair for bits and one per counter width). */
export interface KernelEntries {
  readonly probe: string;
  readonly mark: string;
}

const BIT_ENTRIES: KernelEntries = { probe: 'probe', mark: 'mark' };

/**
 * `module` (a kernel of kernel-modules.ts) instantiated over the memory `bits` lie in, as a {@link BatchKernel}
 * taking at most `keysPerCall` keys a call through its `entries`, when the bits are a view {@link kernelBytes}
 * made; else undefined.
 */
export function instantiateOver(
  module: WebAssembly.Module,
  bits: Uint8Array,
  keysPerCall: number,
  entries: KernelEntries = BIT_ENTRIES,
): BatchKernel | undefined {
  const instance = instanceOver(module, bits);
  if (instance === undefined) return undefined;
  return {
    hashes: instance.hashes,
    answers: instance.answers,
    keysPerCall,
    probe: instance.exports[entries.probe] as BatchKernel['probe'],
    mark: instance.exports[entries.mark] as BatchKernel['mark'],
  };
}

/** A kernel module instantiated over a filter's memory: its exports and the views of its hashes and answers. */
export interface KernelInstance {
  readonly exports: WebAssembly.Exports;
  /** Where a batch's h1..h4 go before a call: key j's at [4j, 4j + 4), j < {@link KERNEL_KEYS}. */
  readonly hashes: Int32Array;
  /** Where a call leaves one answer per key. */
  readonly answers: Uint8Array;
}

/**
 * `module` instantiated over the memory `bits` lie in, when they are a view {@link kernelBytes} made; else
 * undefined (also when instantiating fails).
 */
export function instanceOver(module: WebAssembly.Module, bits: Uint8Array): KernelInstance | undefined {
  const memory = memories.get(bits.buffer);
  if (memory === undefined || bits.byteOffset !== BITS_AT) return undefined;
  try {
    return {
      exports: new WebAssembly.Instance(module, { filter: { memory } }).exports,
      hashes: new Int32Array(memory.buffer, HASHES_AT, KERNEL_KEYS * 4),
      answers: new Uint8Array(memory.buffer, ANSWERS_AT, KERNEL_KEYS),
    };
  } catch {
    return undefined;
  }
}
