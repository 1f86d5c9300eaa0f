import { copyPagesTo } from '../pages.js';
import { lengthOf } from '../parts.js';
import { memoryOf, placeBytes, SCRATCH_BYTES } from './kernel-arena.js';
import { kernelsCompile } from './kernel-modules.js';

/**
 * The scratch every batch kernel works in, at the start of each kernel memory (blocked.wat and stride.wat share it;
 * see their headers): the batch's hashes, its answers, the kernel's own scratch; filters' bits lie past it, where
 * kernel-arena.ts places them.
 */
const HASHES_AT = 0;
const ANSWERS_AT = 16384;

/** The most keys the hashes and answers regions hold (a kernel may take fewer a call: BatchKernel.keysPerCall). */
export const KERNEL_KEYS = 1024;

/**
 * Bits from this many bytes go into a kernel memory (below, the JavaScript loops): there the batch kernel pays.
 * Filters up to 8 MiB share memories, so any number of them can live at once (kernel-arena.ts).
 */
export const KERNEL_FROM_BYTES: number = 256 * 1024;

/** The largest bits a memory here holds: one bit store page (2^32 bits), well inside WebAssembly's 4 GiB. */
const KERNEL_MAX_BYTES = 2 ** 29;

/**
 * `byteLength` bytes in a kernel memory (kernel-arena.ts: 64-byte aligned past the kernels' scratch, so every
 * 64-byte block of a blocked filter is one cache line, and a kernel ({@link instantiateOver}) can work on them).
 * They hold a copy of `contents` when given (one array or parts, `byteLength` bytes in all), else zeros. Undefined
 * (the caller allocates as usual) when `byteLength` is outside [{@link KERNEL_FROM_BYTES}, 2^29] or is not the
 * length of `contents`, or the kernels do not compile here, or the memory cannot be had. The view stays valid for
 * the filter's life; its place is reused once the view itself is collected.
 */
export function kernelBytes(
  byteLength: number,
  contents?: Uint8Array | readonly Uint8Array[],
): Uint8Array | undefined {
  if (byteLength < KERNEL_FROM_BYTES || byteLength > KERNEL_MAX_BYTES || !kernelsCompile()) return undefined;
  if (contents !== undefined && lengthOf(contents) !== byteLength) return undefined;
  const view = placeBytes(byteLength);
  if (view !== undefined && contents !== undefined) copyContents(contents, view);
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
 * What every batch kernel has, whatever its entries take: the views of its scratch a call reads and writes, and
 * how many keys a call takes. {@link BatchKernel} extends it with the entries of the single-filter kinds; a kind
 * whose batches need more of its own state extends it with entries of its own (the window's ring: WindowKernel of
 * `@bloomkit/window`, whose entries take the ring's shape and newest slice, and whose mark stops when a generation
 * fills).
 */
export interface KernelScratch {
  /** Where a batch's h1..h4 go before a call: key j's at [4j, 4j + 4), j < keysPerCall. */
  readonly hashes: Int32Array;
  /** Where a call leaves one answer per key. */
  readonly answers: Uint8Array;
  /** The most keys one call takes. */
  readonly keysPerCall: number;
}

/**
 * A batch kernel over one filter's bits or counters (blocked.wat; stride.wat for the standard and partitioned
 * layouts, and for a counting filter's counters of each width): its two entries and the views of its scratch they
 * read and write. Each entry takes the batch's size, two numbers of the layout (blocked: the block scale and the
 * shift of an offset in a block; stride: the reduction's scale and the stride between slices) and k; an answer is
 * 1 or 0.
 */
export interface BatchKernel extends KernelScratch {
  /** answers[j] = all k bits (counters: all k non-zero) of key j set; returns how many were. Touches first. */
  probe(n: number, scale: number, step: number, k: number): number;
  /** Sets each key's k bits in order; answers[j] = key j was new; returns how many were. Touches first too. */
  mark(n: number, scale: number, step: number, k: number): number;
  /**
   * Marks (`mark`) or probes `count` keys whose h1..h4 are at `hashes[4j .. 4j + 3]`, in order, however many: a
   * WebAssembly kernel copies them into its memory {@link keysPerCall} at a time and runs {@link probe} or
   * {@link mark}; the JavaScript loops (kernel/loop-kernel.ts) read them where they lie. `answers[j]` gets 1 (new,
   * present) or 0 when given. Returns how many were new (present). The engine's one call for a batch.
   */
  run(
    hashes: Int32Array,
    count: number,
    mark: boolean,
    answers: Uint8Array | undefined,
    scale: number,
    step: number,
    k: number,
  ): number;
}

/** The names of a module's two batch entries (stride.wat has one pair for bits and one per counter width). */
export interface KernelEntries {
  readonly probe: string;
  readonly mark: string;
}

const BIT_ENTRIES: KernelEntries = { probe: 'probe', mark: 'mark' };

/**
 * `module` (a kernel of kernel-modules.ts) over the memory `bits` lie in, as a {@link BatchKernel} for them taking
 * at most `keysPerCall` keys a call through its `entries`, when the bits are a view {@link kernelBytes} made; else
 * undefined.
 */
export function instantiateOver(
  module: WebAssembly.Module,
  bits: Uint8Array,
  keysPerCall: number,
  entries: KernelEntries = BIT_ENTRIES,
): BatchKernel | undefined {
  const instance = instanceOver(module, bits);
  if (instance === undefined) return undefined;
  const probe = instance.exports[entries.probe] as BatchKernel['probe'];
  const mark = instance.exports[entries.mark] as BatchKernel['mark'];
  const { at, offset } = instance;
  const kernel: BatchKernel = {
    hashes: instance.hashes,
    answers: instance.answers,
    keysPerCall,
    probe(n, scale, step, k) {
      at.value = offset;
      return probe(n, scale, step, k);
    },
    mark(n, scale, step, k) {
      at.value = offset;
      return mark(n, scale, step, k);
    },
    // The kernel touches every key's lines first, at any size: it computes all the batch's blocks (or positions),
    // then reads them in a loop of loads alone. Blocked: ~12 ns a key from 320 KiB to 19 MiB of bits, where marking
    // without it waits on each line (random hashes, k = 10, ns a key touched/not: 320 KiB 33/35, 1.3 MiB 38/47,
    // 4 MiB 39/112).
    run(hashes, count, marking, answers, scale, step, k) {
      let total = 0;
      for (let done = 0; done < count; done += keysPerCall) {
        const n = Math.min(keysPerCall, count - done);
        kernel.hashes.set(hashes.subarray(done * 4, (done + n) * 4));
        total += marking ? kernel.mark(n, scale, step, k) : kernel.probe(n, scale, step, k);
        if (answers !== undefined) answers.set(kernel.answers.subarray(0, n), done);
      }
      return total;
    },
  };
  return kernel;
}

/**
 * A kernel module instantiated over a kernel memory, shared by the filters in it: its exports, the views of its
 * hashes and answers, and where one filter's bits are. Set `at.value = offset` before each call for that filter.
 */
export interface KernelInstance {
  /** The instance's exports: its entries and its `bits` global. */
  readonly exports: WebAssembly.Exports;
  /** Where a batch's h1..h4 go before a call: key j's at [4j, 4j + 4), j < {@link KERNEL_KEYS}. */
  readonly hashes: Int32Array;
  /** Where a call leaves one answer per key. */
  readonly answers: Uint8Array;
  /** The module's `bits` global: where the bits of the filter a call is for start. */
  readonly at: WebAssembly.Global;
  /** Where this filter's bits start in the memory. */
  readonly offset: number;
}

/** The memory map every kernel module exports (see blocked.wat's header), as this file lays memories out. */
const MEMORY_MAP: Readonly<Record<string, number>> = {
  hashesAt: HASHES_AT,
  answersAt: ANSWERS_AT,
  keysMax: KERNEL_KEYS,
  scratchBytes: SCRATCH_BYTES,
};

/**
 * Throws when a kernel module's exported memory map is not the one kernel-memory.ts and kernel-arena.ts keep: a
 * module built against another layout would read hashes or write answers where filters' bits lie. Only a build
 * that changed one side and not the other does that; the tests instantiate every kernel.
 */
export function checkMemoryMap(exports: WebAssembly.Exports): void {
  for (const [name, expected] of Object.entries(MEMORY_MAP)) {
    const global = exports[name];
    const value = global instanceof WebAssembly.Global ? (global.value as number) : undefined;
    if (value !== expected) {
      throw new Error(`kernel memory map: the module's ${name} is ${value}, this loader's is ${expected}`);
    }
  }
}

/** Each memory's instances, by module: one per module and memory, however many filters the memory holds. */
const instances = new WeakMap<WebAssembly.Memory, Map<WebAssembly.Module, Omit<KernelInstance, 'offset'>>>();

/**
 * `module` instantiated over the memory `bits` lie in (once per memory and module), with their offset, when they
 * are a view {@link kernelBytes} made; else undefined (also when instantiating fails). Throws when the module's
 * exported memory map is not this file's ({@link checkMemoryMap}).
 */
export function instanceOver(module: WebAssembly.Module, bits: Uint8Array): KernelInstance | undefined {
  const memory = memoryOf(bits);
  if (memory === undefined) return undefined;
  let byModule = instances.get(memory);
  if (byModule === undefined) {
    byModule = new Map();
    instances.set(memory, byModule);
  }
  let shared = byModule.get(module);
  if (shared === undefined) {
    let exports: WebAssembly.Exports;
    try {
      exports = new WebAssembly.Instance(module, { filter: { memory } }).exports;
    } catch {
      return undefined;
    }
    checkMemoryMap(exports);
    shared = {
      exports,
      hashes: new Int32Array(memory.buffer, HASHES_AT, KERNEL_KEYS * 4),
      answers: new Uint8Array(memory.buffer, ANSWERS_AT, KERNEL_KEYS),
      at: exports.bits as WebAssembly.Global,
    };
    byModule.set(module, shared);
  }
  return { ...shared, offset: bits.byteOffset };
}
