/**
 * 64-bit unsigned arithmetic on (high, low) pairs of 32-bit words, without BigInt, for the binary fuse filter's hash
 * and slots (Graf & Lemire's reference works in uint64_t). Every product is split so that each partial result is
 * exact in a double (below 2^53) or taken modulo 2^32 with `Math.imul`.
 *
 * Words go in and come out as int32 bit patterns (`x | 0`): V8 keeps an int32 in a register or a small integer, where
 * a uint32 of 2^31 or more passed to a function or returned from one is a heap number, an allocation on the lookup
 * path. Results of two words are written to {@link OUT}: `OUT[0]` the high word, `OUT[1]` the low word.
 */

/** The result pair of the last operation: [high, low]. */
export const OUT: Int32Array = new Int32Array(2);

/** The high 32 bits of the 64-bit product of two u32 (exact: 16-bit halves, each partial product below 2^48). */
export function mulHigh32(a: number, b: number): number {
  const aLow = a & 0xffff;
  const aHigh = a >>> 16;
  const bLow = b & 0xffff;
  const bHigh = b >>> 16;
  // a·b = aHigh·bHigh·2^32 + (aHigh·bLow + aLow·bHigh)·2^16 + aLow·bLow; the middle sum is below 2^34, exact.
  const middle = aHigh * bLow + aLow * bHigh + ((aLow * bLow) >>> 16);
  return (aHigh * bHigh + Math.floor(middle / 65536)) | 0;
}

/** (aHigh:aLow) × (bHigh:bLow) modulo 2^64, into OUT. */
export function mul64(aHigh: number, aLow: number, bHigh: number, bLow: number): void {
  OUT[0] = mulHigh32(aLow, bLow) + Math.imul(aHigh, bLow) + Math.imul(aLow, bHigh);
  OUT[1] = Math.imul(aLow, bLow);
}

/** (aHigh:aLow) + (bHigh:bLow) modulo 2^64, into OUT. */
export function add64(aHigh: number, aLow: number, bHigh: number, bLow: number): void {
  const low = (aLow >>> 0) + (bLow >>> 0);
  OUT[1] = low;
  OUT[0] = aHigh + bHigh + (low > 0xffffffff ? 1 : 0);
}

/**
 * MurmurHash3's 64-bit finalizer (fmix64) of (high:low), into OUT: h ^= h >> 33; h *= 0xff51afd7ed558ccd;
 * h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53; h ^= h >> 33. The reference's `binary_fuse_murmur64`.
 */
export function fmix64(high: number, low: number): void {
  // h >> 33 is high >>> 1 in the low word and 0 in the high word.
  mul64(high, low ^ (high >>> 1), 0xff51afd7 | 0, 0xed558ccd | 0);
  let h = OUT[0]!;
  mul64(h, OUT[1]! ^ (h >>> 1), 0xc4ceb9fe | 0, 0x1a85ec53);
  h = OUT[0]!;
  OUT[1] = OUT[1]! ^ (h >>> 1);
}

/**
 * The high 64 bits of (high:low) × n for a u32 n below 2^31, which are below n: the reference's
 * `binary_fuse_mulhi(hash, n)`. (high·n = H·2^32 + L; the result is H + the carry of L + the high word of low·n.)
 */
export function mulHigh64By32(high: number, low: number, n: number): number {
  const carry = (Math.imul(high, n) >>> 0) + (mulHigh32(low, n) >>> 0);
  return ((mulHigh32(high, n) >>> 0) + (carry > 0xffffffff ? 1 : 0)) | 0;
}
