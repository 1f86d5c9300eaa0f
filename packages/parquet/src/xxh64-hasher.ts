import { compileKernel, KernelChoice } from '@bloomkit/core/internal';
import { XXH64_WASM } from './wasm/xxh64-wasm.js';
import { xxh64Into } from './xxh64-words.js';

/** xxh64.wat's memory layout (see its header). */
const STARTS_AT = 0;
const ENDS_AT = 4096;
const HASHES_AT = 8192;
const WINDOW_AT = 65536;
const WINDOW_END = 262144;

/** The most values one {@link Xxh64Batch.run} hashes. */
const BATCH_VALUES = 1024;

/**
 * The kernel's batch: a caller writes up to `maxValues` values' bytes into `window` (`view` is a DataView of it),
 * value j at `window[starts[j], ends[j])`, then `run(n)` puts value j's hash in `hashes[2j]` (low 32 bits) and
 * `hashes[2j + 1]` (high 32 bits). Views of the kernel's memory, valid for the process's life.
 */
export interface Xxh64Batch {
  /** The most values one run hashes: 1024. */
  readonly maxValues: number;
  readonly window: Uint8Array;
  readonly view: DataView;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly hashes: Uint32Array;
  run(n: number): void;
}

/** XXH64 (seed 0) of single values, and of batches where the kernel runs. */
export interface Xxh64Hasher {
  /** The hash of `bytes[start, start + length)`: low 32 bits to `out[at]`, high to `out[at + 1]`. */
  bytes(bytes: Uint8Array, start: number, length: number, out: Uint32Array, at?: number): void;
  /** The hash of `text`'s UTF-8 bytes (a lone surrogate as U+FFFD, as `TextEncoder` writes it), the same way. */
  text(text: string, out: Uint32Array, at?: number): void;
  /** The batch kernel, or undefined on the JavaScript path (then hash one value at a time). */
  readonly batch: Xxh64Batch | undefined;
}

/** xxh64.wat instantiated on first use, while the switch is 'auto' and WebAssembly loads. */
const kernel = new KernelChoice<Xxh64Hasher>(instantiate);

let javascript: Xxh64Hasher | undefined;

/**
 * The XXH64 hasher for this batch or value, by core's one switch between WebAssembly and JavaScript (`KernelChoice`):
 * xxh64.wat (692 bytes, instantiated on first use) where it loads and the switch is 'auto', else JavaScript
 * ({@link xxh64Into}); the same hashes either way. Ask again for each batch: the switch may change between them. A
 * single value goes through the kernel too: a 40-byte string costs ~110 ns there (one `encodeInto` into the
 * kernel's window and one call) against ~400 ns in JavaScript.
 */
export function xxh64Hasher(): Xxh64Hasher {
  return kernel.get() ?? javascriptHasher();
}

/** A UTF-8 buffer for the JavaScript path's texts, grown as needed (nothing allocated per value once grown). */
let utf8 = new Uint8Array(256);
const encoder = new TextEncoder();

/** The JavaScript hasher. */
function javascriptHasher(): Xxh64Hasher {
  javascript ??= {
    bytes: (bytes, start, length, out, at = 0) => xxh64Into(bytes, start, length, out, at),
    text(text, out, at = 0) {
      if (text.length * 3 > utf8.length) utf8 = new Uint8Array(text.length * 3);
      const { written } = encoder.encodeInto(text, utf8);
      xxh64Into(utf8, 0, written, out, at);
    },
    batch: undefined,
  };
  return javascript;
}

function instantiate(): Xxh64Hasher | undefined {
  const module = compileKernel('xxh64.wat', XXH64_WASM);
  if (module === null) return undefined;
  let exports: WebAssembly.Exports;
  try {
    exports = new WebAssembly.Instance(module, {}).exports;
  } catch {
    return undefined;
  }
  const hashOne = exports.hashOne as (start: number, end: number) => void;
  const hashMany = exports.hashMany as (
    starts: number,
    ends: number,
    n: number,
    out: number,
    base: number,
  ) => void;
  const buffer = (exports.memory as WebAssembly.Memory).buffer;
  const memory = new Uint8Array(buffer);
  const window = memory.subarray(WINDOW_AT, WINDOW_END);
  const result = new Uint32Array(buffer, HASHES_AT, 2);
  const capacity = window.length;
  const fallback = javascriptHasher();
  const copyOut = (out: Uint32Array, at: number): void => {
    out[at] = result[0]!;
    out[at + 1] = result[1]!;
  };
  return {
    bytes(bytes, start, length, out, at = 0) {
      if (length > capacity) return fallback.bytes(bytes, start, length, out, at);
      window.set(start === 0 && length === bytes.length ? bytes : bytes.subarray(start, start + length));
      hashOne(WINDOW_AT, WINDOW_AT + length);
      copyOut(out, at);
    },
    text(text, out, at = 0) {
      // At most 3 bytes a UTF-16 unit: a text that could overflow the window is hashed in JavaScript.
      if (text.length * 3 > capacity) return fallback.text(text, out, at);
      const { written } = encoder.encodeInto(text, window);
      hashOne(WINDOW_AT, WINDOW_AT + written);
      copyOut(out, at);
    },
    batch: {
      maxValues: BATCH_VALUES,
      window,
      view: new DataView(buffer, WINDOW_AT, WINDOW_END - WINDOW_AT),
      starts: new Int32Array(buffer, STARTS_AT, BATCH_VALUES),
      ends: new Int32Array(buffer, ENDS_AT, BATCH_VALUES),
      hashes: new Uint32Array(buffer, HASHES_AT, 2 * BATCH_VALUES),
      run(n) {
        hashMany(STARTS_AT, ENDS_AT, n, HASHES_AT, WINDOW_AT);
      },
    },
  };
}
