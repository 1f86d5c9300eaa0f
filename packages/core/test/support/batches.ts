import { batchHashes, hashBatch } from '../../src/batch-hash.js';
import { setKernelBackend } from '../../src/kernel/backend.js';
import type { Key } from '../../src/key.js';

/** Runs `work` with batches forced onto the JavaScript loops (and the JavaScript hash). */
export function onJavaScript<T>(work: () => T): T {
  const before = setKernelBackend('javascript');
  try {
    return work();
  } finally {
    setKernelBackend(before);
  }
}

/** Keys' hashes with `seed`, 4 words each, as addHashes and hasHashes take them. */
export function hashesOf(keys: readonly Key[], seed: number): Int32Array {
  const out = new Int32Array(keys.length * 4);
  for (let start = 0; start < keys.length; ) {
    const count = hashBatch(keys, start, seed, 'test');
    out.set(batchHashes().subarray(0, count * 4), start * 4);
    start += count;
  }
  return out;
}
