import { decodeBase64 } from '../base64.js';
import type { Key } from '../key.js';
import { MURMUR3_SIMD_WASM } from './murmur3-simd-wasm.js';
import { MURMUR3_WASM } from './murmur3-wasm.js';

/** murmur3.wat's memory layout (see its header): starts, ends, hashes, and the window keys are copied into. */
const STARTS_AT = 0;
const ENDS_AT = 4096;
const HASHES_AT = 8192;
const LINE_ENDS_AT = 24576;
const WINDOW_AT = 65536;
const WINDOW_END = 196608;

/** The most keys one call hashes (the offsets and hashes regions hold this many). */
export const WASM_BATCH_KEYS: number = 1024;

/**
 * Hashes keys of `list` from `start` into {@link WasmMurmur3.hashes} (key j's h1..h4 at [4j, 4j + 4)), as many as
 * fit one batch: returns how many, or 0 when the first of them cannot go this way (a key longer than the window,
 * or a batch whose strings are not all ASCII); the caller then hashes in JavaScript.
 */
export type HashKeysFunction = (list: readonly Key[], start: number, seed: number) => number;

/**
 * Hashes the lines of `bytes[from, to)` that end with `separator`, from `from` on, into {@link WasmMurmur3.hashes}
 * (line j's h1..h4 at [4j, 4j + 4)), as many as fit one batch, and writes where each line ends into
 * {@link WasmMurmur3.lineEnds} (just past its separator, as an offset in `bytes`). A line's key is the line without
 * its separator, and with `crlf` without a CR just before it. Returns how many lines, or 0 when the first line is
 * longer than the window or has no separator before `to`.
 */
export type HashLinesFunction = (
  bytes: Uint8Array,
  from: number,
  to: number,
  separator: number,
  crlf: boolean,
  seed: number,
) => number;

/** The WebAssembly hasher: its entries and the arrays (views of the module's memory) they write to. */
export interface WasmMurmur3 {
  readonly hashKeys: HashKeysFunction;
  readonly hashLines: HashLinesFunction;
  readonly hashes: Int32Array;
  readonly lineEnds: Int32Array;
  /** Whether keys are hashed by murmur3-simd.wat (else murmur3.wat's own hashKeys). */
  readonly simd: boolean;
}

/** Options of {@link instantiateMurmur3}. */
export interface Murmur3Options {
  /**
   * Whether keys are hashed by murmur3-simd.wat (four at a time in 128-bit vectors) where the engine compiles it;
   * default true. False hashes them with murmur3.wat's own hashKeys, which is what an engine without WebAssembly
   * SIMD gets (the tests hold both to hashInto).
   */
  readonly simd?: boolean;
}

/**
 * murmur3.wat instantiated synchronously (the module is under 1 KiB), with murmur3-simd.wat's hashKeys over its
 * memory where the engine has WebAssembly SIMD (measured on 10^6 URL keys of 38 bytes on average, one process:
 * 8.4 ns a key, where murmur3.wat's takes 18.4): undefined where WebAssembly is missing or refused (an engine without
 * it, a Content-Security-Policy without 'wasm-unsafe-eval').
 *
 * A batch's strings are joined and written with one `TextEncoder.encodeInto` (measured on 10^6 URL keys: ~25 ns a
 * key, where a call per key costs ~190 ns), which is exact when every character is ASCII: then each key's bytes
 * are its characters and where each begins and ends follows from the lengths. `encodeInto` writes more bytes than characters
 * exactly when a string is not ASCII, and the batch then reports 0 so the caller hashes it in JavaScript (where
 * a non-ASCII string and lone surrogates get the one UTF-8 encoding every path shares). Byte keys are copied in.
 */
export function instantiateMurmur3(options: Murmur3Options = {}): WasmMurmur3 | undefined {
  let exports: WebAssembly.Exports;
  try {
    const module = new WebAssembly.Module(decodeBase64('murmur3.wat', MURMUR3_WASM));
    exports = new WebAssembly.Instance(module, {}).exports;
  } catch {
    return undefined;
  }
  const memory = exports.memory as WebAssembly.Memory;
  const vectors = options.simd === false ? undefined : vectorHashKeys(memory);
  const run = vectors ?? (exports.hashKeys as RunHash);
  const split = exports.splitLines as SplitLines;
  const buffer = memory.buffer;
  const lineEnds = new Int32Array(buffer, LINE_ENDS_AT, WASM_BATCH_KEYS);
  const hashKeys = keysHasher(buffer, run);
  const hashLines = linesHasher(buffer, lineEnds, run, split);
  return {
    hashKeys,
    hashLines,
    hashes: new Int32Array(buffer, HASHES_AT, WASM_BATCH_KEYS * 4),
    lineEnds,
    simd: vectors !== undefined,
  };
}

/** murmur3-simd.wat's hashKeys over `memory`; undefined where the engine does not compile it (no SIMD). */
function vectorHashKeys(memory: WebAssembly.Memory): RunHash | undefined {
  try {
    const module = new WebAssembly.Module(decodeBase64('murmur3-simd.wat', MURMUR3_SIMD_WASM));
    return new WebAssembly.Instance(module, { hash: { memory } }).exports.hashKeys as RunHash;
  } catch {
    return undefined;
  }
}

/**
 * murmur3.wat's (or murmur3-simd.wat's) hashKeys entry: starts and ends (offsets of the window), n, seed, where the
 * hashes go.
 */
type RunHash = (starts: number, ends: number, n: number, seed: number, out: number) => void;

/** murmur3.wat's splitLines entry (see its header). */
type SplitLines = (
  from: number,
  to: number,
  separator: number,
  crlf: number,
  max: number,
  bias: number,
) => number;

/** {@link HashKeysFunction} over the module's memory: keys copied (strings joined, encoded at once) and hashed. */
function keysHasher(buffer: ArrayBuffer, run: RunHash): HashKeysFunction {
  const memory = new Uint8Array(buffer);
  const starts = new Int32Array(buffer, STARTS_AT, WASM_BATCH_KEYS);
  const ends = new Int32Array(buffer, ENDS_AT, WASM_BATCH_KEYS);
  const encoder = new TextEncoder();

  /** Writes `joined` at `at`; false unless it was all ASCII (one byte per character, all of it written). */
  const writeAscii = (joined: string, at: number): boolean => {
    const result = encoder.encodeInto(joined, memory.subarray(at, WINDOW_END));
    return result.read === joined.length && result.written === joined.length;
  };

  const hashKeys: HashKeysFunction = (list, start, seed) => {
    const last = Math.min(list.length, start + WASM_BATCH_KEYS);
    let at = WINDOW_AT;
    let joined = '';
    let joinedAt = WINDOW_AT;
    let j = start;
    for (; j < last; j++) {
      const key = list[j]!;
      const end = at + key.length;
      if (end > WINDOW_END) break;
      if (typeof key === 'string') {
        if (joined === '') joinedAt = at;
        joined += key;
      } else {
        if (joined !== '' && !writeAscii(joined, joinedAt)) return 0;
        joined = '';
        memory.set(key, at);
      }
      starts[j - start] = at;
      ends[j - start] = end;
      at = end;
    }
    if (joined !== '' && !writeAscii(joined, joinedAt)) return 0;
    run(STARTS_AT, ENDS_AT, j - start, seed, HASHES_AT);
    return j - start;
  };
  return hashKeys;
}

/** {@link HashLinesFunction} over the module's memory: a block's lines copied, split and hashed where they lie. */
function linesHasher(
  buffer: ArrayBuffer,
  lineEnds: Int32Array,
  run: RunHash,
  split: SplitLines,
): HashLinesFunction {
  const memory = new Uint8Array(buffer);
  // Bytes copied for the next batch of lines: what the last batch used, with room to spare, so a batch copies about
  // the bytes of its 1024 lines rather than the whole window (the whole window when that was not enough for one).
  let linesCopy = 16384;
  const hashLines: HashLinesFunction = (bytes, from, to, separator, crlf, seed) => {
    const most = Math.min(to - from, WINDOW_END - WINDOW_AT);
    for (let length = Math.min(most, linesCopy); ; length = most) {
      memory.set(bytes.subarray(from, from + length), WINDOW_AT);
      const n = split(
        WINDOW_AT,
        WINDOW_AT + length,
        separator,
        crlf ? 1 : 0,
        WASM_BATCH_KEYS,
        from - WINDOW_AT,
      );
      if (n > 0) {
        run(STARTS_AT, ENDS_AT, n, seed, HASHES_AT);
        const used = lineEnds[n - 1]! - from;
        linesCopy = n < WASM_BATCH_KEYS ? Math.max(linesCopy, 2 * used) : used + (used >>> 2) + 1024;
        return n;
      }
      if (length === most) return 0;
    }
  };
  return hashLines;
}
