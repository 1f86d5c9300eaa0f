import { describe, expect, it } from 'vitest';
import { type HashBatchFilter, PendingKeys, RUN_KEYS } from '../src/pending-keys.js';

/** A filter that holds the keys whose h1 is in `held`. */
function holding(held: number[]): HashBatchFilter {
  return {
    hasHashes(hashes, count, answers) {
      for (let j = 0; j < count; j++) answers[j] = held.includes(hashes[4 * j]!) ? 1 : 0;
    },
  };
}

/** A batch whose key j has h1..h4 = 100 + j, -j, j, 7. */
function batch(count: number): Int32Array {
  const hashes = new Int32Array(4 * count);
  for (let j = 0; j < count; j++) hashes.set([100 + j, -j, j, 7], 4 * j);
  return hashes;
}

describe('PendingKeys', () => {
  it('takes a run of a batch, then keeps in order only the keys no filter may hold, marking the others found', () => {
    const run = new PendingKeys();
    run.take(batch(10), 3, 9);
    expect(run.count).toBe(6);
    const found = new Uint8Array(12);
    run.dropHeldBy(holding([104, 106]), found, 3);
    run.dropHeldBy(holding([103]), found, 3);
    expect(run.count).toBe(3);
    expect([...run.origin.subarray(0, 3)]).toEqual([2, 4, 5]);
    expect([...run.hashes.subarray(0, 12)]).toEqual([105, -5, 5, 7, 107, -7, 7, 7, 108, -8, 8, 7]);
    expect([...found]).toEqual([0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0]);
    run.dropHeldBy(holding([105, 107, 108]));
    expect(run.count).toBe(0);
  });

  it('holds a whole run', () => {
    const run = new PendingKeys();
    run.take(batch(RUN_KEYS + 5), 5, RUN_KEYS + 5);
    run.dropHeldBy(holding([]));
    expect(run.count).toBe(RUN_KEYS);
    expect(run.hashes[4 * (RUN_KEYS - 1)]).toBe(100 + RUN_KEYS + 4);
    expect(run.origin[RUN_KEYS - 1]).toBe(RUN_KEYS - 1);
  });
});
