/**
 * From one 128-bit hash to k bit positions, for any filter size m in [1, 2^48].
 *
 * Scheme: a cubic polynomial in i with four pseudo-random 64-bit coefficients, each value reduced to the range:
 *
 *     a = h1·2^32 + h2                       b = h3·2^32 + h4
 *     c = fmix32(h1 ^ h4)·2^32 + fmix32(h2 ^ h3)
 *     d = fmix32(h1 ^ h3 ^ K)·2^32 + fmix32(h2 ^ h4 ^ K)      (K = 0x9e3779b9)
 *     position[i] = reduce(a + b·i + c·i² + d·i³ mod 2^64, M)   (+ i·s for the partitioned layout)
 *
 * evaluated by forward differences (three 64-bit additions per position). This generalizes double hashing
 * (Kirsch & Mitzenmacher, "Less Hashing, Same Performance", ESA 2006) and the enhanced/triple hashing of
 * Dillinger & Manolios (FMCAD 2004, §5). The four random coefficients matter: with double hashing a key's k
 * positions are a function of two numbers in [0, M), so two keys agree on all of them with probability ~1/M². That
 * floors the false-positive rate at about n/M², which is measurable in the slices of a small partitioned filter
 * (s = 1506, n = 1000: +4.4·10^-4 on a target of 1.5·10^-3). With four coefficients the floor is about n/M⁴.
 *
 * `reduce(v, M)` = ⌊v · M / 2^64⌋ (Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS 2019) is
 * uniform over [0, M) up to a relative bias of M / 2^64 (≤ 2^-16 at M = 2^48), with no division. It is computed
 * exactly in 16-bit limbs: every partial product is below 2^48 and every sum below 2^50, so double-precision
 * arithmetic never rounds. The 64-bit additions are done on exact 32-bit halves. Positions are exact integers
 * below 2^48. No position ever goes through `| 0` or `>>> 0`, so nothing is truncated above 2^32.
 *
 * The same derivation is specified in docs/FORMAT.md (§ 5): it is part of the file format.
 */

/** The largest filter, in bits, that positions can address: 2^48 bits (32 TiB). */
export const MAX_BITS: number = 2 ** 48;

const TWO_16 = 65536;
const TWO_32 = 4294967296;
/** 2^-16 and 2^-32: multiplying by them is exact and avoids a division. */
const INV_16 = 1 / TWO_16;
const INV_32 = 1 / TWO_32;
/** Below this M, {@link reduceSmall} is exact (hi·M < 2^52). */
const SMALL = 2 ** 20;

/**
 * ⌊(hi·2^32 + lo) · M / 2^64⌋ for hi, lo unsigned 32-bit and 1 ≤ M ≤ 2^48, computed exactly.
 * `m0`, `m1`, `m2` are M's 16-bit limbs (M = m2·2^32 + m1·2^16 + m0).
 */
function mulHigh(hi: number, lo: number, m0: number, m1: number, m2: number): number {
  // Column by column from weight 2^0 to 2^64, carrying ⌊·/2^16⌋ upwards.
  let carry = Math.floor(lo * m0 * INV_16); // weight 2^16
  carry = Math.floor((lo * m1 + carry) * INV_16); // weight 2^32
  carry = Math.floor((hi * m0 + lo * m2 + carry) * INV_16); // weight 2^48
  carry = Math.floor((hi * m1 + carry) * INV_16); // weight 2^64
  return hi * m2 + carry;
}

/** The same value for M ≤ 2^20, in two products: hi·M < 2^52 and lo·M < 2^52 are exact. */
function reduceSmall(hi: number, lo: number, m: number): number {
  return Math.floor((hi * m + Math.floor(lo * m * INV_32)) * INV_32);
}

/** The 32-bit finalization mix of MurmurHash3 (smhasher), as an unsigned integer. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Golden-ratio constant that makes d differ from c when h3 = h4 (keys of at most 8 bytes). */
const K = 0x9e3779b9;

/**
 * Writes k positions into `out[offset, offset + k)`: position i is `i·stride + reduce(p(i), range)`.
 * The standard layout is stride 0, range m; the partitioned layout is stride = range = s.
 */
function derive(
  hash: Uint32Array,
  range: number,
  stride: number,
  hashes: number,
  out: Float64Array,
  offset: number,
): void {
  const h1 = hash[0]!;
  const h2 = hash[1]!;
  const h3 = hash[2]!;
  const h4 = hash[3]!;
  // p = a; Δ1 = b + c + d; Δ2 = 2c + 6d; Δ3 = 6d — each a 64-bit value as (hi, lo), 0 ≤ hi, lo < 2^32. Carries
  // are branch-free: `x >>> 0` is x mod 2^32 exactly for these hash words (never bit indexes) and (x − (x >>> 0))
  // · 2^-32 is the carry. A compare-and-subtract carry is taken half the time at random: a mispredicted branch
  // per word, which made this function three times slower.
  const cHi = fmix32(h1 ^ h4);
  const cLo = fmix32(h2 ^ h3);
  const dHi = fmix32(h1 ^ h3 ^ K);
  const dLo = fmix32(h2 ^ h4 ^ K);
  let pHi = h1;
  let pLo = h2;
  let sum = dLo * 6; // Δ3 = 6d
  const d3Lo = sum >>> 0;
  const d3Hi = (dHi * 6 + (sum - d3Lo) * INV_32) >>> 0;
  sum = cLo * 2 + d3Lo; // Δ2 = 2c + 6d
  let d2Lo = sum >>> 0;
  let d2Hi = (cHi * 2 + d3Hi + (sum - d2Lo) * INV_32) >>> 0;
  sum = h4 + cLo + dLo; // Δ1 = b + c + d
  let d1Lo = sum >>> 0;
  let d1Hi = (h3 + cHi + dHi + (sum - d1Lo) * INV_32) >>> 0;

  const small = range <= SMALL;
  const m2 = Math.floor(range / TWO_32);
  const rest = range - m2 * TWO_32;
  const m1 = Math.floor(rest / TWO_16);
  const m0 = rest - m1 * TWO_16;
  let base = 0;
  for (let i = 0; i < hashes; i++) {
    out[offset + i] = base + (small ? reduceSmall(pHi, pLo, range) : mulHigh(pHi, pLo, m0, m1, m2));
    base += stride;
    // p += Δ1; Δ1 += Δ2; Δ2 += Δ3 (all mod 2^64)
    sum = pLo + d1Lo;
    pLo = sum >>> 0;
    pHi = (pHi + d1Hi + (sum - pLo) * INV_32) >>> 0;
    sum = d1Lo + d2Lo;
    d1Lo = sum >>> 0;
    d1Hi = (d1Hi + d2Hi + (sum - d1Lo) * INV_32) >>> 0;
    sum = d2Lo + d3Lo;
    d2Lo = sum >>> 0;
    d2Hi = (d2Hi + d3Hi + (sum - d2Lo) * INV_32) >>> 0;
  }
}

/**
 * Writes the k positions of the standard layout (anywhere in [0, m)) into `out[offset, offset + k)`.
 *
 * @param hash h1..h4 from {@link murmur3x86_128Into}.
 * @param bits m, an integer in [1, {@link MAX_BITS}].
 * @param hashes k, at least 1.
 */
export function derivePositions(
  hash: Uint32Array,
  bits: number,
  hashes: number,
  out: Float64Array,
  offset = 0,
): void {
  derive(hash, bits, 0, hashes, out, offset);
}

/**
 * Writes the k positions of the partitioned layout into `out[offset, offset + k)`: position i lies in slice i,
 * that is in [i·s, (i+1)·s), where s = `sliceBits`.
 *
 * @param sliceBits s, an integer in [1, MAX_BITS / k].
 */
export function derivePartitionedPositions(
  hash: Uint32Array,
  sliceBits: number,
  hashes: number,
  out: Float64Array,
  offset = 0,
): void {
  derive(hash, sliceBits, sliceBits, hashes, out, offset);
}
