import { kernelBackend } from './kernel/backend.js';
import type { Key } from './key.js';
import { hashInto, hashRangeInto } from './murmur3.js';
import { instantiateMurmur3, WASM_BATCH_KEYS, type WasmMurmur3 } from './wasm/murmur3-instance.js';

/**
 * Many keys hashed at once (the kernel's batch entry): `addAll`, `hasMany` and the kinds that hash outside the
 * engine hash a batch of keys here, then touch and probe their slots.
 *
 * Where WebAssembly loads, a batch's bytes are copied into its memory and MurmurHash3 x86_128 runs there, four
 * keys at a time in SIMD lanes (wasm/murmur3-simd.wat; wasm/murmur3.wat's one key at a time on an engine without
 * SIMD): no bounds check per load, no string type check per character. Measured on 10^6 URL keys (38 characters on
 * average), batches of 4,096, in one process (2026-11-29): ~30 ns a key for the batch (join and `encodeInto` ~21,
 * the hash 8.4; 18.4 on murmur3.wat), against ~125–230 ns for `hashInto` of each key from JavaScript. A
 * batch that cannot go that way (a string with a non-ASCII character, a key longer than the window) and every
 * batch where WebAssembly is refused are hashed by {@link hashInto}, key by key. The words are the same either way
 * (test/batch-hash.spec.ts, over ASCII, non-ASCII, lone surrogates and bytes).
 */

/** The most keys one batch holds. */
export const BATCH_KEYS: number = WASM_BATCH_KEYS;

/** The WebAssembly hasher once loaded; null when it could not be (then never tried again). */
let wasm: WasmMurmur3 | null | undefined;
/** The JavaScript path's hashes. */
const scriptHashes = new Int32Array(BATCH_KEYS * 4);
/** The JavaScript path's line ends. */
const scriptLineEnds = new Int32Array(BATCH_KEYS);

/**
 * Hashes keys of `list` from `start` (at least one, at most {@link BATCH_KEYS}) with `seed`; returns how many. Key
 * j's h1..h4 are then at [4j, 4j + 4) of {@link batchHashes}, as {@link hashInto} writes them, until the next
 * batch. `list` holds only strings and Uint8Arrays (as `keyList` returns it), `seed` is an unsigned 32-bit integer,
 * and `start` < `list.length`.
 */
export function hashBatch(list: readonly Key[], start: number, seed: number, where: string): number {
  if (kernelBackend() === 'auto') {
    const fast = loadedWasm();
    if (fast !== null) {
      const count = fast.hashKeys(list, start, seed);
      if (count > 0) return count;
      return hashInJavaScript(list, start, seed, where, fast.hashes);
    }
  }
  return hashInJavaScript(list, start, seed, where, scriptHashes);
}

/**
 * {@link hashBatch} of the lines of a buffer (the CLI's read buffer): the lines of `bytes[from, to)` that end with
 * the byte `separator`, from `from` on, at most {@link BATCH_KEYS}; returns how many, 0 when no separator lies in
 * `[from, to)` (the bytes after the last one are not a line). Line j runs from `from` (j = 0) or the end of line
 * j − 1 to {@link batchLineEnds}`[j]`, just past its separator; its key is the line without the separator, and with
 * `crlf` also without a CR just before it, and its h1..h4 are at [4j, 4j + 4) of {@link batchHashes}, as
 * `hashRangeInto` writes them for that key. `separator` is a byte, `seed` an unsigned 32-bit integer, and
 * 0 ≤ `from` ≤ `to` ≤ `bytes.length`: nothing is checked here.
 *
 * With WebAssembly the lines are found there too, 8 bytes at a time, after one copy of about the batch's bytes;
 * a line longer than the window (128 KiB) is found and hashed in JavaScript.
 */
export function hashLineBatch(
  bytes: Uint8Array,
  from: number,
  to: number,
  separator: number,
  crlf: boolean,
  seed: number,
): number {
  let hashes: Int32Array = scriptHashes;
  let ends: Int32Array = scriptLineEnds;
  let most = BATCH_KEYS;
  if (kernelBackend() === 'auto') {
    const fast = loadedWasm();
    if (fast !== null) {
      const count = fast.hashLines(bytes, from, to, separator, crlf, seed);
      if (count > 0) return count;
      // The first line is longer than the window (or has no separator): that line alone here.
      hashes = fast.hashes;
      ends = fast.lineEnds;
      most = 1;
    }
  }
  let start = from;
  let count = 0;
  for (; count < most; count++) {
    const at = bytes.indexOf(separator, start);
    if (at === -1 || at >= to) break;
    const end = crlf && at > start && bytes[at - 1] === CR ? at - 1 : at;
    hashRangeInto(bytes, start, end, seed, hashes, count * 4);
    ends[count] = at + 1;
    start = at + 1;
  }
  return count;
}

/** Carriage return, dropped before a line's separator by {@link hashLineBatch} with `crlf`. */
const CR = 0x0d;

/** Where each line of the last {@link hashLineBatch} ends (the same array until the backend changes). */
export function batchLineEnds(): Int32Array {
  if (kernelBackend() === 'auto') {
    const fast = loadedWasm();
    if (fast !== null) return fast.lineEnds;
  }
  return scriptLineEnds;
}

/**
 * The array the last {@link hashBatch} or {@link hashLineBatch} wrote to (the same one until the backend changes).
 */
export function batchHashes(): Int32Array {
  if (kernelBackend() === 'auto') {
    const fast = loadedWasm();
    if (fast !== null) return fast.hashes;
  }
  return scriptHashes;
}

function hashInJavaScript(
  list: readonly Key[],
  start: number,
  seed: number,
  where: string,
  out: Int32Array,
): number {
  const count = Math.min(BATCH_KEYS, list.length - start);
  for (let j = 0; j < count; j++) hashInto(list[start + j], seed, out, where, j * 4);
  return count;
}

/** The WebAssembly hasher, compiled on first use; null where it does not load (then never tried again). */
function loadedWasm(): WasmMurmur3 | null {
  if (wasm === undefined) wasm = instantiateMurmur3() ?? null;
  return wasm;
}

/** Which implementation a batch is hashed on now: 'webassembly', or 'javascript' when forced or unavailable. */
export function hashBackend(): 'webassembly' | 'javascript' {
  if (kernelBackend() !== 'auto') return 'javascript';
  return loadedWasm() === null ? 'javascript' : 'webassembly';
}
