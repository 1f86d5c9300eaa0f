import { CHI2_63_P999, chiSquare } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { murmur3x86_128Into } from '../src/murmur3.js';
import { derivePositions, MAX_BITS } from '../src/positions.js';

/** fmix32 in BigInt arithmetic: the test's own rendering of MurmurHash3's finalizer. */
function fmix32(value: number): bigint {
  const M = 2n ** 32n;
  let h = BigInt(value >>> 0);
  h ^= h >> 16n;
  h = (h * 0x85ebca6bn) % M;
  h ^= h >> 13n;
  h = (h * 0xc2b2ae35n) % M;
  return h ^ (h >> 16n);
}

/** x rounded to the nearest binary64 significand (53 bits, ties to even), as BigInt: IEEE 754's product rounding. */
function roundToDouble(x: bigint): bigint {
  const length = x.toString(2).length;
  if (length <= 53) return x;
  const shift = BigInt(length - 53);
  let q = x >> shift;
  const rest = x - (q << shift);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
  return q << shift;
}

/**
 * The closed form of the scheme, in BigInt (docs/FORMAT.md § 5), independent of the forward-difference
 * double-precision code under test. Narrow (M ≤ 2^32): p(i) = h1 + h2·i + h3·i² + h4·i³ (mod 2^32) and
 * offset_i = ⌊round53(p(i)·M) / 2^32⌋ — the binary64 product p(i) × (M·2^-32) then a floor. Wide: the 64-bit cubic
 * with fmix32-derived c and d, offset_i = ⌊p(i)·M / 2^64⌋ exactly.
 */
function referenceOffsets(hash: readonly number[], M: number, k: number): number[] {
  const [h1, h2, h3, h4] = hash.map((w) => BigInt(w >>> 0)) as [bigint, bigint, bigint, bigint];
  const out: number[] = [];
  if (M <= 2 ** 32) {
    for (let i = 0n; i < BigInt(k); i++) {
      const p = (h1 + h2 * i + h3 * i * i + h4 * i * i * i) % 2n ** 32n;
      out.push(Number(roundToDouble(p * BigInt(M)) >> 32n));
    }
    return out;
  }
  const a = (h1 << 32n) | h2;
  const b = (h3 << 32n) | h4;
  const w = hash.map((x) => x >>> 0) as [number, number, number, number];
  const c = (fmix32(w[0] ^ w[3]) << 32n) | fmix32(w[1] ^ w[2]);
  const d = (fmix32(w[0] ^ w[2] ^ 0x9e3779b9) << 32n) | fmix32(w[1] ^ w[3] ^ 0x9e3779b9);
  for (let i = 0n; i < BigInt(k); i++) {
    const p = (a + b * i + c * i * i + d * i * i * i) % 2n ** 64n;
    out.push(Number((p * BigInt(M)) >> 64n));
  }
  return out;
}
const referencePositions = referenceOffsets;

/** Standard geometry (range m, stride 0) and partitioned geometry (range s, stride s). */
const standard = (m: number) => ({ range: m, stride: 0 });
const sliced = (s: number) => ({ range: s, stride: s });
function derivePartitionedPositions(hash: Uint32Array, s: number, k: number, out: Float64Array): void {
  derivePositions(hash, sliced(s), k, out);
}

const word = fc.integer({ min: 0, max: 0xffffffff });
const hashArb = fc.tuple(word, word, word, word);

describe('derivePositions', () => {
  it("narrow offsets are Lemire's exact ⌊p·M/2^32⌋ or one more, never M or above (20,000 cases)", () => {
    let differ = 0;
    fc.assert(
      fc.property(word, fc.integer({ min: 1, max: 2 ** 32 }), (u, m) => {
        const out = new Float64Array(1);
        derivePositions(Uint32Array.from([u, 0, 0, 0]), standard(m), 1, out);
        const exact = Number((BigInt(u) * BigInt(m)) >> 32n);
        expect(out[0] === exact || out[0] === exact + 1).toBe(true);
        expect(out[0]).toBeLessThan(m);
        if (out[0] !== exact) differ++;
      }),
      { numRuns: 20_000 },
    );
    expect(differ).toBeLessThan(10);
  });

  it('equals the BigInt closed form exactly, for m from 1 to 2^48 (5,000 cases)', () => {
    const sizes = fc.oneof(
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 2 ** 20 - 5, max: 2 ** 20 + 5 }),
      fc.integer({ min: 2 ** 32 - 1000, max: 2 ** 32 + 1000 }),
      fc.integer({ min: 1, max: MAX_BITS }),
    );
    fc.assert(
      fc.property(hashArb, sizes, fc.integer({ min: 1, max: 64 }), (hash, m, k) => {
        const out = new Float64Array(k);
        derivePositions(Uint32Array.from(hash), standard(m), k, out);
        expect(Array.from(out)).toEqual(referencePositions(hash, m, k));
      }),
      { numRuns: 5_000 },
    );
  });

  it('keeps full precision at the extremes: all-ones hash, m = 2^48', () => {
    const hash = [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff];
    const out = new Float64Array(8);
    derivePositions(Uint32Array.from(hash), standard(MAX_BITS), 8, out);
    expect(out[0]).toBe(MAX_BITS - 1);
    expect(Array.from(out)).toEqual(referencePositions(hash, MAX_BITS, 8));
  });

  it('writes at an offset without touching the rest of the buffer', () => {
    const out = new Float64Array(10).fill(-1);
    derivePositions(Uint32Array.from([1, 2, 3, 4]), standard(1000), 3, out, 5);
    expect(Array.from(out.subarray(0, 5))).toEqual([-1, -1, -1, -1, -1]);
    expect(Array.from(out.subarray(5, 8))).toEqual(referencePositions([1, 2, 3, 4], 1000, 3));
    expect(Array.from(out.subarray(8))).toEqual([-1, -1]);
  });

  // 64 equal-width buckets over [0, m); 200,000 positions from real key hashes.
  const uniformCases = [2 ** 32 - 5, 2 ** 32, 2 ** 32 + 7, 2 ** 33 + 12345, 1_000_003, 64 * 1001 + 1];
  for (const m of uniformCases) {
    it(`spreads positions uniformly and in range for m = ${m} (chi-square, 64 buckets, p = 0.001)`, () => {
      const k = 7;
      const hash = new Uint32Array(4);
      const out = new Float64Array(k);
      const buckets = new Float64Array(64);
      const lowBits = new Float64Array(64);
      let outOfRange = 0;
      for (let i = 0; i < 200_000 / k; i++) {
        murmur3x86_128Into(`key-${i}`, 0, hash);
        derivePositions(hash, standard(m), k, out);
        for (const p of out) {
          if (!(Number.isInteger(p) && p >= 0 && p < m)) outOfRange++;
          buckets[Math.floor((p * 64) / m)]!++;
          lowBits[p % 64]!++;
        }
      }
      expect(outOfRange).toBe(0);
      expect(chiSquare(buckets)).toBeLessThan(CHI2_63_P999);
      // The low bits must be uniform too (m % 64 ≠ 0 makes a few residues rarer by a negligible 64/m).
      expect(chiSquare(lowBits)).toBeLessThan(CHI2_63_P999);
    });
  }

  it('covers every position of a small odd m with counts close to uniform', () => {
    const m = 13;
    const counts = new Float64Array(m);
    const hash = new Uint32Array(4);
    const out = new Float64Array(3);
    for (let i = 0; i < 13_000; i++) {
      murmur3x86_128Into(`small-${i}`, 9, hash);
      derivePositions(hash, standard(m), 3, out);
      for (const p of out) counts[p]!++;
    }
    // chi-square with 12 degrees of freedom, upper 0.1% point 32.909
    expect(chiSquare(counts)).toBeLessThan(32.909);
  });

  it('gives keys independent position tuples: no pair of 20,000 keys shares all positions in 1,009-bit slices', () => {
    // Double hashing would leave only about s² distinct tuples, so about n²/(2s²) ≈ 196 pairs would collide.
    const s = 1009;
    const k = 6;
    const hash = new Uint32Array(4);
    const out = new Float64Array(k);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      murmur3x86_128Into(`tuple-${i}`, 0, hash);
      derivePartitionedPositions(hash, s, k, out);
      seen.add(out.join(','));
    }
    expect(seen.size).toBe(20_000);
  });

  it('works for m = 1 (every position is 0)', () => {
    const out = new Float64Array(5);
    derivePositions(Uint32Array.from([5, 6, 7, 8]), standard(1), 5, out);
    expect(Array.from(out)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('derivePartitionedPositions', () => {
  it('puts position i in slice i, at the closed-form offset (3,000 cases)', () => {
    fc.assert(
      fc.property(
        hashArb,
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 32 }),
        (hash, s, k) => {
          const out = new Float64Array(k);
          derivePartitionedPositions(Uint32Array.from(hash), s, k, out);
          const offsets = referencePositions(hash, s, k);
          for (let i = 0; i < k; i++) {
            expect(out[i]).toBe(i * s + offsets[i]!);
            expect(out[i]! >= i * s && out[i]! < (i + 1) * s).toBe(true);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('spreads offsets uniformly inside slices just above 2^32 bits', () => {
    const s = 2 ** 32 + 3;
    const k = 4;
    const hash = new Uint32Array(4);
    const out = new Float64Array(k);
    const buckets = new Float64Array(64);
    for (let i = 0; i < 50_000; i++) {
      murmur3x86_128Into(`p-${i}`, 1, hash);
      derivePartitionedPositions(hash, s, k, out);
      for (let j = 0; j < k; j++) buckets[Math.floor(((out[j]! - j * s) * 64) / s)]!++;
    }
    expect(chiSquare(buckets)).toBeLessThan(CHI2_63_P999);
  });
});
