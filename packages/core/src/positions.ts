import { type SlotStore, strideSlots } from './kernel/slot-loops.js';
import { fmix32 } from './murmur3.js';
import { INV_32, NARROW_LIMIT, narrowScale } from './narrow.js';

/**
 * From one 128-bit hash to k bit positions (docs/FORMAT.md §5 is the normative text; this file is its reference).
 *
 * A layout turns a filter shape into a *geometry*: each of the k positions is `base + i·stride + offset_i`, where
 * offset_i lies in [0, range). The standard layout is (range m, stride 0), the partitioned layout (range s, stride s)
 * with s = m/k. The offsets are a cubic polynomial in i with pseudo-random coefficients, reduced to the range:
 *
 *   - narrow (range ≤ 2^32), the path of every filter up to 512 MiB per slice:
 *         p(i) = h1 + h2·i + h3·i² + h4·i³  (mod 2^32),   offset_i = ⌊p(i) × (range × 2^-32)⌋ in binary64;
 *   - wide (2^32 < range ≤ 2^48), 64-bit coefficients:
 *         a = h1·2^32 + h2, b = h3·2^32 + h4,
 *         c = fmix32(h1 ^ h4)·2^32 + fmix32(h2 ^ h3), d = fmix32(h1 ^ h3 ^ K)·2^32 + fmix32(h2 ^ h4 ^ K),
 *         p(i) = a + b·i + c·i² + d·i³  (mod 2^64),        offset_i = ⌊p(i) · range / 2^64⌋.
 *
 * Both are evaluated by forward differences: p += Δ1, Δ1 += Δ2, Δ2 += Δ3, from p = p(0), Δ1 = b + c + d,
 * Δ2 = 2c + 6d, Δ3 = 6d. That generalizes double hashing (Kirsch & Mitzenmacher, "Less Hashing, Same Performance",
 * ESA 2006) and the enhanced/triple hashing of Dillinger & Manolios (FMCAD 2004, §5). Four coefficients matter:
 * with double hashing two keys share all k positions with probability ~1/range², which floors the false-positive
 * rate near n/range² (measurable in the 1,506-bit slices of a small partitioned filter: +4.4·10^-4 on a target of
 * 1.5·10^-3). With four the floor is ~n/range⁴. (Keys of at most 8 bytes have h3 = h4 in MurmurHash3 x86_128, so
 * for them three coefficients are independent and the floor is ~n/range³: still negligible.)
 *
 * The reduction ⌊v · range / 2^w⌋ (Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS 2019) is
 * uniform over [0, range) up to a relative bias of range / 2^w, with no division. Narrow, it is one binary64
 * product and a floor (see `reduceNarrow` in narrow.ts); wide, it is exact in 16-bit limbs. Cost (Node 20, this
 * repository's 2-core machine): the narrow path derives 7 positions in about 20 ns, where the earlier all-64-bit
 * scheme took 85 ns.
 */

/** The largest filter, in bits, that positions can address: 2^48 bits (32 TiB). */
export const MAX_BITS: number = 2 ** 48;

const TWO_16 = 65536;
const TWO_32 = 4294967296;
/** 2^-16: multiplying by it is exact and avoids a division. */
const INV_16: number = 1 / TWO_16;

/**
 * Where a key's k positions fall: position i = base + i·stride + offset_i, offset_i in [0, range). The base is 0,
 * except for a blocked geometry (`blocks` > 1), where it is block·range for the key's block (see `blockOf` in
 * narrow.ts).
 */
export interface Geometry {
  /** The size of the interval each offset is reduced into: m (standard), s = m/k (partitioned), B (blocked). */
  readonly range: number;
  /** The distance between the intervals of consecutive positions: 0 (standard, blocked), s (partitioned). */
  readonly stride: number;
  /** Blocks of `range` bits each key picks one of: m / B (blocked); absent or 1 otherwise. At most 2^32. */
  readonly blocks?: number;
}

/** Golden-ratio constant that makes d differ from c when h3 = h4 (keys of at most 8 bytes). */
const K = 0x9e3779b9;

/**
 * Writes a key's k positions into `out[offset, offset + k)`.
 *
 * @param hash h1..h4 from `murmur3x86_128Into` (a Uint32Array, or an Int32Array holding the same words).
 * @param geometry range in [1, 2^48] and stride, from a layout.
 * @param hashes k, at least 1.
 */
export function derivePositions(
  hash: ArrayLike<number>,
  geometry: Geometry,
  hashes: number,
  out: Float64Array,
  offset = 0,
): void {
  if (geometry.range <= NARROW_LIMIT) deriveNarrow(hash, geometry, hashes, out, offset);
  else deriveWide(hash, geometry, hashes, out, offset);
}

/** The narrow path's hash words, as the single-key loops take them (a Uint32Array's words copied in). */
const narrowHash = new Int32Array(4);

/** A store that records the slots it is asked to mark, in order: how the narrow path lists a key's positions. */
class PositionList implements SlotStore {
  out: Float64Array = new Float64Array(0);
  at = 0;
  mark(i: number): number {
    this.out[this.at++] = i;
    return 0;
  }
  get(): boolean {
    return false;
  }
}
const narrowList = new PositionList();

/**
 * The narrow path: the stride loop of kernel/slot-loops.ts (p(i) by forward differences, each reduced by
 * narrow.ts's `reduceNarrow`, plus the base of the key's block and i·stride), writing the slots it would mark.
 * One copy of the recurrence serves the reference and the filters' single-key calls; test/positions.spec.ts holds
 * it to the closed form in BigInt.
 */
function deriveNarrow(
  hash: ArrayLike<number>,
  g: Geometry,
  hashes: number,
  out: Float64Array,
  offset: number,
): void {
  const words = narrowHash;
  words[0] = hash[0]!;
  words[1] = hash[1]!;
  words[2] = hash[2]!;
  words[3] = hash[3]!;
  const list = narrowList;
  list.out = out;
  list.at = offset;
  const blocks = g.blocks ?? 1;
  const blockScale = blocks > 1 ? narrowScale(blocks) : 0;
  strideSlots(
    undefined,
    undefined,
    list,
    words,
    0,
    hashes,
    narrowScale(g.range),
    g.stride,
    blockScale,
    g.range,
    true,
  );
}

/**
 * ⌊(hi·2^32 + lo) · M / 2^64⌋ for hi, lo unsigned 32-bit and 1 ≤ M ≤ 2^48, exactly, column by column in 16-bit
 * limbs of M (M = m2·2^32 + m1·2^16 + m0): every partial product is below 2^48 and every sum below 2^50.
 */
function mulHigh(hi: number, lo: number, m0: number, m1: number, m2: number): number {
  let carry = Math.floor(lo * m0 * INV_16); // weight 2^16
  carry = Math.floor((lo * m1 + carry) * INV_16); // weight 2^32
  carry = Math.floor((hi * m0 + lo * m2 + carry) * INV_16); // weight 2^48
  carry = Math.floor((hi * m1 + carry) * INV_16); // weight 2^64
  return hi * m2 + carry;
}

function deriveWide(
  hash: ArrayLike<number>,
  g: Geometry,
  hashes: number,
  out: Float64Array,
  offset: number,
): void {
  const h1 = hash[0]! >>> 0;
  const h2 = hash[1]! >>> 0;
  const h3 = hash[2]! >>> 0;
  const h4 = hash[3]! >>> 0;
  // Each 64-bit value is (hi, lo) with 0 ≤ hi, lo < 2^32. Carries are branch-free: (x − (x >>> 0))·2^-32 is the
  // carry of a sum x of two 32-bit words (a compare-and-subtract carry mispredicts half the time).
  const cHi = fmix32(h1 ^ h4) >>> 0;
  const cLo = fmix32(h2 ^ h3) >>> 0;
  const dHi = fmix32(h1 ^ h3 ^ K) >>> 0;
  const dLo = fmix32(h2 ^ h4 ^ K) >>> 0;
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

  const { range, stride } = g;
  const m2 = Math.floor(range * INV_32);
  const rest = range - m2 * TWO_32;
  const m1 = Math.floor(rest * INV_16);
  const m0 = rest - m1 * TWO_16;
  let base = 0;
  for (let i = 0; i < hashes; i++) {
    out[offset + i] = base + mulHigh(pHi, pLo, m0, m1, m2);
    base += stride;
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
