import { InvalidArgumentError, type Key } from '@bloomkit/core';
import { batchHashes, hashBatch } from '@bloomkit/core/kit';
import { firstOccurrences } from './distinct-keys.js';
import { type FuseBuild, MAX_ATTEMPTS, populate } from './fuse-build.js';

/**
 * The 64-bit keys of `list` as the build takes them ((low, high) u32 pairs): the first 64 bits of each key's
 * MurmurHash3 x86_128 with `seed`, h1 the low word and h2 the high (docs/FORMAT.md §3.8), hashed a batch at a time.
 */
export function keyWords(where: string, list: readonly Key[], seed: number): Uint32Array {
  const words = new Uint32Array(2 * list.length);
  for (let start = 0; start < list.length; ) {
    const count = hashBatch(list, start, seed, where);
    const hashes = batchHashes();
    for (let j = 0; j < count; j++) {
      words[2 * (start + j)] = hashes[4 * j]!;
      words[2 * (start + j) + 1] = hashes[4 * j + 1]!;
    }
    start += count;
  }
  return words;
}

/**
 * The build of the set `words` of `bits`-bit fingerprints (fuse-build.ts). With `distinct`, a set whose build found
 * repeats is built again from its distinct keys, each at its first occurrence (distinct-keys.ts): the reference over
 * the distinct hashes, sized for them (`build`, `fromKeyHashes`). Without (`fromHashes`), the reference's own
 * handling, sized for every key given. An InvalidArgumentError when no seed builds it.
 */
export function buildSet(where: string, words: Uint32Array, bits: 8 | 16, distinct: boolean): FuseBuild {
  let built = populate(words, bits);
  if (built !== undefined && distinct && built.keys < words.length / 2) {
    built = populate(firstOccurrences(words), bits);
  }
  if (built === undefined) {
    throw new InvalidArgumentError(
      `${where}: no seed of ${MAX_ATTEMPTS} built the filter (each fails with probability below 1/2; more than 63 keys hashing to one slot fail every seed)`,
    );
  }
  return built;
}
