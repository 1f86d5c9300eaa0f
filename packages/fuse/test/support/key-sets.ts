/**
 * The key sets the reference comparison builds from: deterministic 64-bit keys (splitmix64 from a seed), with
 * duplicates in some (every `repeatEvery`-th key a copy of an earlier one), from 0 to 10^6 keys.
 */
export interface KeySet {
  readonly name: string;
  readonly size: number;
  readonly seed: bigint;
  /** Every this-many-th key repeats an earlier key (0: none). */
  readonly repeatEvery: number;
}

const MASK = (1n << 64n) - 1n;

/** The keys of a set. */
export function keysOf(set: KeySet): BigUint64Array {
  const out = new BigUint64Array(set.size);
  let state = set.seed;
  for (let i = 0; i < set.size; i++) {
    if (set.repeatEvery > 0 && i > 0 && i % set.repeatEvery === 0) {
      out[i] = out[Number(state % BigInt(i))]!;
      state = (state * 6364136223846793005n + 1442695040888963407n) & MASK;
      continue;
    }
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    out[i] = z ^ (z >> 31n);
  }
  return out;
}

/** The sets: small and edge sizes, then 10^3 … 10^6, each without and with duplicates. */
export const KEY_SETS: readonly KeySet[] = [
  ...[0, 1, 2, 3, 4, 5, 7, 10, 31, 100, 257].map((size) => ({
    name: `${size} keys`,
    size,
    seed: BigInt(size) + 1n,
    repeatEvery: 0,
  })),
  { name: '2 copies of one key', size: 2, seed: 9n, repeatEvery: 1 },
  { name: '100 keys, every 2nd a copy', size: 100, seed: 11n, repeatEvery: 2 },
  ...[1_000, 10_000, 100_000, 1_000_000].flatMap((size) => [
    { name: `${size} keys`, size, seed: BigInt(size) * 3n, repeatEvery: 0 },
    { name: `${size} keys, every 7th a copy`, size, seed: BigInt(size) * 5n, repeatEvery: 7 },
  ]),
];
