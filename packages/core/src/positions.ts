/**
 * From one 128-bit hash to k bit positions, for any filter size m in [1, 2^48].
 *
 * Scheme (enhanced double hashing, Dillinger & Manolios, "Bloom Filters in Probabilistic Verification", FMCAD 2004,
 * §5; also their "Fast and Accurate Bitstate Verification for SPIN", SPIN 2004):
 *
 *     x = reduce(h1:h2, m)      y = reduce(h3:h4, m)
 *     position[0] = x
 *     for i = 1 .. k-1:  x = (x + y) mod m;  y = (y + i) mod m;  position[i] = x
 *
 * which is g_i = a + i·b + (i³ − i)/6 (mod m). Plain double hashing (a + i·b) repeats a position whenever b ≡ 0 or
 * shares a factor with m and so costs accuracy at high k; the cubic term removes those collisions.
 *
 * `reduce(a, m)` is ⌊a · m / 2^64⌋ for the 64-bit value a = hi·2^32 + lo (Lemire, "Fast Random Integer Generation in
 * an Interval", ACM TOMACS 2019): uniform over [0, m) up to a relative bias of m / 2^64 (≤ 2^-16 at m = 2^48), with
 * no division. It is computed exactly in 16-bit limbs: every partial product is below 2^48 and every sum below
 * 2^50, so the double-precision arithmetic never rounds. Positions are exact integers below 2^48 ≤ 2^53; there is
 * no `| 0` or `>>> 0` on a position, so nothing is truncated above 2^32.
 *
 * The same derivation is specified byte for byte in docs/FORMAT.md (§ Positions): it is part of the file format.
 */

/** The largest filter, in bits, that positions can address: 2^48 bits (32 TiB). */
export const MAX_BITS: number = 2 ** 48;

const TWO_16 = 65536;
const TWO_32 = 4294967296;

/**
 * ⌊(hi·2^32 + lo) · m / 2^64⌋ for hi, lo unsigned 32-bit and 1 ≤ m ≤ 2^48, computed exactly.
 * `m0`, `m1`, `m2` are m's 16-bit limbs (m = m2·2^32 + m1·2^16 + m0).
 */
function mulHigh(hi: number, lo: number, m0: number, m1: number, m2: number): number {
  // Column by column from weight 2^0 to 2^64, carrying ⌊·/2^16⌋ upwards.
  let carry = Math.floor((lo * m0) / TWO_16); // weight 2^16
  carry = Math.floor((lo * m1 + carry) / TWO_16); // weight 2^32
  carry = Math.floor((hi * m0 + lo * m2 + carry) / TWO_16); // weight 2^48
  carry = Math.floor((hi * m1 + carry) / TWO_16); // weight 2^64
  return hi * m2 + carry;
}

/**
 * Writes the k positions of the standard layout into `out[0..k)`.
 *
 * @param hash h1..h4 from {@link murmur3x86_128Into}.
 * @param bits m, an integer in [1, {@link MAX_BITS}].
 * @param hashes k, at least 1.
 * @param out receives the positions at `[offset, offset + k)`.
 */
export function derivePositions(
  hash: Uint32Array,
  bits: number,
  hashes: number,
  out: Float64Array,
  offset = 0,
): void {
  const m0 = bits % TWO_16;
  const m1 = Math.floor(bits / TWO_16) % TWO_16;
  const m2 = Math.floor(bits / TWO_32);
  let x = mulHigh(hash[0]!, hash[1]!, m0, m1, m2);
  let y = mulHigh(hash[2]!, hash[3]!, m0, m1, m2);
  out[offset] = x;
  for (let i = 1; i < hashes; i++) {
    x += y;
    if (x >= bits) x -= bits;
    y += i;
    if (y >= bits) y %= bits;
    out[offset + i] = x;
  }
}

/**
 * Writes the k positions of the partitioned layout into `out[0..k)`: position i lies in slice i, that is in
 * [i·s, (i+1)·s), where s = `sliceBits`. The offsets within the slices follow the same enhanced double hashing
 * over [0, s) as {@link derivePositions} does over [0, m).
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
  const s0 = sliceBits % TWO_16;
  const s1 = Math.floor(sliceBits / TWO_16) % TWO_16;
  const s2 = Math.floor(sliceBits / TWO_32);
  let x = mulHigh(hash[0]!, hash[1]!, s0, s1, s2);
  let y = mulHigh(hash[2]!, hash[3]!, s0, s1, s2);
  out[offset] = x;
  let base = 0;
  for (let i = 1; i < hashes; i++) {
    x += y;
    if (x >= sliceBits) x -= sliceBits;
    y += i;
    if (y >= sliceBits) y %= sliceBits;
    base += sliceBits;
    out[offset + i] = base + x;
  }
}
