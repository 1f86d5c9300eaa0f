import { decodeBase64 } from '../json.js';
import type { Key } from '../key.js';
import { MURMUR3_WASM } from './murmur3-wasm.js';

/** murmur3.wat's memory layout (see its header): starts, ends, hashes, and the window keys are copied into. */
const STARTS_AT = 0;
const ENDS_AT = 4096;
const HASHES_AT = 8192;
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
 * Hashes the ranges `bytes[starts[j], ends[j])` for j from `from` to at most `to` (exclusive) into
 * {@link WasmMurmur3.hashes} (range from + i at [4i, 4i + 4)): as many as fit one batch, whose bytes (from the first
 * start to the last end) are copied into the window at once. Returns how many, or 0 when the first range alone is
 * longer than the window. The ranges are in order: starts and ends never decrease.
 */
export type HashRangesFunction = (
  bytes: Uint8Array,
  starts: Int32Array,
  ends: Int32Array,
  from: number,
  to: number,
  seed: number,
) => number;

/** The WebAssembly hasher: its two entries and the array (a view of the module's memory) they write to. */
export interface WasmMurmur3 {
  readonly hashKeys: HashKeysFunction;
  readonly hashRanges: HashRangesFunction;
  readonly hashes: Int32Array;
}

/**
 * murmur3.wat instantiated synchronously (the module is under 1 KiB): undefined where WebAssembly is missing or
 * refused (an engine without it, a Content-Security-Policy without 'wasm-unsafe-eval').
 *
 * A batch's strings are joined and written with one `TextEncoder.encodeInto` (measured on 10^6 URL keys: ~25 ns a
 * key, where a call per key costs ~190 ns), which is exact when every character is ASCII: then each key's bytes
 * are its characters and where each begins and ends follows from the lengths. `encodeInto` writes more bytes than characters
 * exactly when a string is not ASCII, and the batch then reports 0 so the caller hashes it in JavaScript (where
 * a non-ASCII string and lone surrogates get the one UTF-8 encoding every path shares). Byte keys are copied in.
 */
export function instantiateMurmur3(): WasmMurmur3 | undefined {
  let exports: WebAssembly.Exports;
  try {
    const module = new WebAssembly.Module(decodeBase64('murmur3.wat', MURMUR3_WASM));
    exports = new WebAssembly.Instance(module, {}).exports;
  } catch {
    return undefined;
  }
  const run = exports.hashKeys as (
    starts: number,
    ends: number,
    n: number,
    seed: number,
    out: number,
  ) => void;
  const buffer = (exports.memory as WebAssembly.Memory).buffer;
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
  const hashRanges: HashRangesFunction = (bytes, rangeStarts, rangeEnds, from, to, seed) => {
    const base = rangeStarts[from]!;
    const last = Math.min(to, from + WASM_BATCH_KEYS);
    let j = from;
    while (j < last && rangeEnds[j]! - base <= WINDOW_END - WINDOW_AT) j++;
    if (j === from) return 0;
    memory.set(bytes.subarray(base, rangeEnds[j - 1]), WINDOW_AT);
    const shift = WINDOW_AT - base;
    for (let i = from; i < j; i++) {
      starts[i - from] = rangeStarts[i]! + shift;
      ends[i - from] = rangeEnds[i]! + shift;
    }
    run(STARTS_AT, ENDS_AT, j - from, seed, HASHES_AT);
    return j - from;
  };
  return { hashKeys, hashRanges, hashes: new Int32Array(buffer, HASHES_AT, WASM_BATCH_KEYS * 4) };
}
