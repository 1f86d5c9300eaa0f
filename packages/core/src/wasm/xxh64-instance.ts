import { decodeBase64 } from '../base64.js';
import { encodeUtf8 } from '../utf8.js';
import { xxh64Into } from '../xxh64.js';
import { XXH64_WASM } from './xxh64-wasm.js';

/** xxh64.wat's memory layout (see its header). */
const STARTS_AT = 0;
const ENDS_AT = 4096;
const HASHES_AT = 8192;
const WINDOW_AT = 65536;
const WINDOW_END = 262144;

/** The most values one {@link Xxh64Batch.run} hashes. */
const BATCH_VALUES = 1024;

/**
 * The kernel's batch: a caller writes up to `maxValues` values' bytes into `window`, value j at
 * `window[starts[j], ends[j])`, then `run(n)` puts value j's hash in `hashes[2j]` (low 32 bits) and
 * `hashes[2j + 1]` (high 32 bits). Views of the kernel's memory, valid for the process's life.
 */
export interface Xxh64Batch {
  /** The most values one run hashes: 1024. */
  readonly maxValues: number;
  readonly window: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly hashes: Uint32Array;
  run(n: number): void;
}

/** XXH64 (seed 0) of single values, and of batches where the kernel loads. */
export interface Xxh64Hasher {
  /** The hash of `bytes[start, start + length)`: low 32 bits to `out[at]`, high to `out[at + 1]`. */
  bytes(bytes: Uint8Array, start: number, length: number, out: Uint32Array, at?: number): void;
  /** The hash of `text`'s UTF-8 bytes (a lone surrogate as U+FFFD, as `TextEncoder` writes it), the same way. */
  text(text: string, out: Uint32Array, at?: number): void;
  /** The batch kernel, or undefined where WebAssembly does not load (then hash one value at a time). */
  readonly batch: Xxh64Batch | undefined;
}

let hasher: Xxh64Hasher | undefined;

/**
 * The process's XXH64 hasher: through xxh64.wat (685 bytes, instantiated on first use) where WebAssembly loads, else
 * JavaScript ({@link xxh64Into}); the same hashes either way. A single value goes through the kernel too: a 40-byte
 * string costs ~110 ns there (one `encodeInto` into the kernel's window and one call) against ~400 ns in JavaScript.
 */
export function xxh64Hasher(): Xxh64Hasher {
  hasher ??= instantiate() ?? javascriptHasher();
  return hasher;
}

/** The JavaScript hasher: strings through the shared UTF-8 buffer. */
function javascriptHasher(): Xxh64Hasher {
  return {
    bytes: (bytes, start, length, out, at = 0) => xxh64Into(bytes, start, length, out, at),
    text(text, out, at = 0) {
      const utf8 = encodeUtf8(text);
      xxh64Into(utf8.bytes, 0, utf8.length, out, at);
    },
    batch: undefined,
  };
}

function instantiate(): Xxh64Hasher | undefined {
  let exports: WebAssembly.Exports;
  try {
    const module = new WebAssembly.Module(decodeBase64('xxh64.wat', XXH64_WASM));
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
  const encoder = new TextEncoder();
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
      starts: new Int32Array(buffer, STARTS_AT, BATCH_VALUES),
      ends: new Int32Array(buffer, ENDS_AT, BATCH_VALUES),
      hashes: new Uint32Array(buffer, HASHES_AT, 2 * BATCH_VALUES),
      run(n) {
        hashMany(STARTS_AT, ENDS_AT, n, HASHES_AT, WINDOW_AT);
      },
    },
  };
}
