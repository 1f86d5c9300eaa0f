import type { Key } from './key.js';
import { hashInto, hashRangeInto } from './murmur3.js';
import { instantiateMurmur3, WASM_BATCH_KEYS, type WasmMurmur3 } from './wasm/murmur3-instance.js';

/**
 * Many keys hashed at once (the kernel's batch entry): `addAll`, `hasMany` and the kinds that hash outside the
 * engine hash a batch of keys here, then touch and probe their slots.
 *
 * Where WebAssembly loads, a batch's bytes are copied into its memory and MurmurHash3 x86_128 runs there
 * (wasm/murmur3.wat): no bounds check per load, no string type check per character, four lanes kept in registers.
 * Measured on 10^6 URL keys (38 characters on average), in one process: ~57 ns a key for the batch (join and
 * `encodeInto` ~25, offsets ~5, the hash ~25), against ~125–230 ns for `hashInto` of each key from JavaScript. A
 * batch that cannot go that way (a string with a non-ASCII character, a key longer than the window) and every
 * batch where WebAssembly is refused are hashed by {@link hashInto}, key by key. The words are the same either way
 * (test/batch-hash.spec.ts, over ASCII, non-ASCII, lone surrogates and bytes).
 */

/** The most keys one batch holds. */
export const BATCH_KEYS: number = WASM_BATCH_KEYS;

/** Which implementation runs: 'auto' uses WebAssembly where it loads. */
export type HashBackend = 'auto' | 'javascript';

let backend: HashBackend = 'auto';
/** The WebAssembly hasher once loaded; null when it could not be (then never tried again). */
let wasm: WasmMurmur3 | null | undefined;
/** The JavaScript path's hashes. */
const scriptHashes = new Int32Array(BATCH_KEYS * 4);

/**
 * Hashes keys of `list` from `start` (at least one, at most {@link BATCH_KEYS}) with `seed`; returns how many. Key
 * j's h1..h4 are then at [4j, 4j + 4) of {@link batchHashes}, as {@link hashInto} writes them, until the next
 * batch. `list` holds only strings and Uint8Arrays (as `keyList` returns it), `seed` is an unsigned 32-bit integer,
 * and `start` < `list.length`.
 */
export function hashBatch(list: readonly Key[], start: number, seed: number, where: string): number {
  if (backend === 'auto') {
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
 * {@link hashBatch} of keys that lie in one buffer (the CLI's lines in its read buffer): the ranges
 * `bytes[starts[j], ends[j])` from j = `from`, at least one and at most {@link BATCH_KEYS} of them before `to`;
 * returns how many. Range from + i's h1..h4 are then at [4i, 4i + 4) of {@link batchHashes}, as
 * `hashRangeInto` writes them. The ranges are in order (starts and ends never decrease) within `bytes`, `seed` is
 * an unsigned 32-bit integer and `from` < `to`: nothing is checked here. With WebAssembly, a batch's bytes are
 * copied into its memory at once (one copy of the span from the first start to the last end).
 */
export function hashRangeBatch(
  bytes: Uint8Array,
  starts: Int32Array,
  ends: Int32Array,
  from: number,
  to: number,
  seed: number,
): number {
  let out: Int32Array = scriptHashes;
  if (backend === 'auto') {
    const fast = loadedWasm();
    if (fast !== null) {
      const count = fast.hashRanges(bytes, starts, ends, from, to, seed);
      if (count > 0) return count;
      out = fast.hashes;
    }
  }
  const count = Math.min(BATCH_KEYS, to - from);
  for (let i = 0; i < count; i++) hashRangeInto(bytes, starts[from + i]!, ends[from + i]!, seed, out, i * 4);
  return count;
}

/** The array the last {@link hashBatch} or {@link hashRangeBatch} wrote to (the same one until the backend changes). */
export function batchHashes(): Int32Array {
  if (backend === 'auto') {
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

/**
 * Chooses the implementation: 'javascript' forces {@link hashInto} per key and the engine's JavaScript loops
 * instead of the blocked batch kernel (what runs where WebAssembly is refused), so the tests check both paths; 'auto' (the default) goes back. Returns what ran before. Not exported
 * from the package.
 */
export function setHashBackend(choice: HashBackend): HashBackend {
  const before = backend;
  backend = choice;
  return before;
}

/** Which implementation a batch runs on now: 'webassembly', or 'javascript' when forced or unavailable. */
export function hashBackend(): 'webassembly' | 'javascript' {
  if (backend !== 'auto') return 'javascript';
  return loadedWasm() === null ? 'javascript' : 'webassembly';
}
