/**
 * From a key's hash to its fingerprint and its two buckets (docs/FORMAT.md §3.9). The key's MurmurHash3 x86_128
 * words h1..h4 (§4, as unsigned 32-bit integers):
 *
 *   fingerprint  fp = (h2 mod (2^f − 1)) + 1            in [1, 2^f − 1]; 0 marks an empty slot
 *   first bucket i1 = h1 mod n
 *   other bucket i2 = alt(i1, fp) = (g(fp) − i1) mod n,  g(fp) = (fp · 0x1b873593) mod 2^32
 *
 * alt is an involution for every bucket count n, alt(alt(i, fp), fp) = i, so a fingerprint moved out of either of
 * its buckets finds the other from the bucket and the fingerprint alone, and the table needs no power-of-two size
 * (Fan et al., "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014, §3.1 use i ⊕ hash(fp), which needs
 * one). fp < 2^24 and the constant < 2^29, so the product is exact in binary64: Lua computes the same.
 *
 * The kick walk's choices come from h3 (§3.9, "Adding"): deterministic, so every writer of a filter, here or in
 * Redis, leaves the same bytes.
 */

/** g's multiplier (MurmurHash3's c2): odd, below 2^29. */
const ALT_MULTIPLIER = 0x1b873593;

/** The fingerprint of a key whose second hash word is `h2` (any int32); `modulus` is 2^f − 1. */
export function fingerprintOf(h2: number, modulus: number): number {
  return (modOf(h2 >>> 0, modulus) + 1) | 0;
}

/** The bucket of a key whose first hash word is `h1` (any int32), among `buckets`. */
export function firstBucket(h1: number, buckets: number): number {
  return modOf(h1 >>> 0, buckets) | 0;
}

/** The other bucket of fingerprint `fp` in bucket `bucket`: (g(fp) − bucket) mod n. */
export function otherBucket(bucket: number, fp: number, buckets: number): number {
  const g = modOf(Math.imul(fp, ALT_MULTIPLIER) >>> 0, buckets);
  const other = (g - bucket) | 0;
  return other < 0 ? (other + buckets) | 0 : other;
}

/** The kick walk's next state: r ← (69069 · r + 1) mod 2^32 (exact in binary64, as Lua computes it). */
export function nextKick(r: number): number {
  return (Math.imul(r, 69069) + 1) >>> 0;
}

/**
 * x mod n for integers 0 ≤ x < 2^32 and 1 ≤ n < 2^32, exactly: the quotient's rounding error (≤ q · 2^-53) is below
 * the 1/n that separates x / n from the next integer, so the floor is the true quotient. V8 compiles this to a
 * few float operations where `%` on values it cannot prove 32-bit calls fmod (measured ~3 ns against ~40).
 */
function modOf(x: number, n: number): number {
  return x - Math.floor(x / n) * n;
}
