import fc from 'fast-check';
import { expect } from 'vitest';

type Key = string | Uint8Array;

/** The batch entries for keys already hashed, and what they must agree with. */
export interface HashBatchFilter {
  readonly seed: number;
  readonly count: number;
  addHash(hash: Int32Array): boolean;
  has(key: Key): boolean;
  addHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number;
  hasHashes(hashes: Int32Array, count: number, answers: Uint8Array): void;
  serialize(): Uint8Array;
}

const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.uint8Array({ maxLength: 16 }));

/** The keys' h1..h4 one after another, as `hashBatch` lays them out. */
function hashesOf(
  keys: readonly Key[],
  seed: number,
  hashOf: (key: Key, seed: number) => Int32Array,
): Int32Array {
  const out = new Int32Array(keys.length * 4);
  for (const [j, k] of keys.entries()) out.set(hashOf(k, seed), j * 4);
  return out;
}

/**
 * `addHashes` and `hasHashes` of filters from `make` (two per run, alike) answer as `addHash` and `has` key by key,
 * leave the same bytes, and refuse bad arguments with a typed error, changing nothing. `hashOf` is the key's h1..h4
 * with a seed (`hashInto` from `@bloomkit/core/kit`).
 */
export function expectHashBatchesAsSingleKeys(
  make: () => HashBatchFilter,
  hashOf: (key: Key, seed: number) => Int32Array,
): void {
  fc.assert(
    fc.property(fc.array(key, { maxLength: 300 }), fc.array(key, { maxLength: 50 }), (added, probed) => {
      const single = make();
      const batched = make();
      const answers = new Uint8Array(added.length);
      const expected = added.map((k) => single.addHash(hashOf(k, single.seed)));
      const hashes = hashesOf(added, single.seed, hashOf);
      expect(batched.addHashes(hashes, added.length, answers)).toBe(expected.filter(Boolean).length);
      expect([...answers]).toEqual(expected.map(Number));
      expect(batched.serialize()).toEqual(single.serialize());
      const found = new Uint8Array(probed.length);
      batched.hasHashes(hashesOf(probed, single.seed, hashOf), probed.length, found);
      expect([...found]).toEqual(probed.map((k) => Number(single.has(k))));
    }),
    { numRuns: 60 },
  );
  const filter = make();
  expect(() => filter.addHashes(new Int32Array(8), 3)).toThrow(
    /addHashes: count must be an integer in \[0, 2\]/,
  );
  expect(() => filter.hasHashes(new Int32Array(8), 2, new Uint8Array(1))).toThrow(
    /hasHashes: answers must be a Uint8Array of at least count \(2\) bytes/,
  );
  expect(() => filter.hasHashes(new Int32Array(8), 2, undefined as never)).toThrow(
    /hasHashes: answers must be/,
  );
  expect(() => filter.addHashes([1, 2, 3, 4] as never, 1)).toThrow(/addHashes: hashes must be an Int32Array/);
  expect(filter.count).toBe(0);
}
