import { derivePositions, type Geometry, type Key, type Layout, murmur3x86_128Into } from '@bloomkit/core';

/**
 * A key's positions in one filter shape, computed in the client with core's code: MurmurHash3 x86_128 of the key's
 * UTF-8 bytes with the filter's seed, then the layout's positions (docs/FORMAT.md §5). That is why a filter in
 * Redis is bit for bit the local filter built from the same keys.
 */
export class KeyPositions {
  readonly hash: Uint32Array = new Uint32Array(4);
  private readonly geometry: Geometry;
  private readonly out: Float64Array;

  constructor(
    layout: Layout,
    readonly bits: number,
    readonly hashes: number,
    private readonly seed: number,
  ) {
    this.geometry = layout.geometry(bits, hashes);
    this.out = new Float64Array(hashes);
  }

  /** Hashes `key` and returns its k positions (a reused array: valid until the next call). */
  of(key: Key): Float64Array {
    murmur3x86_128Into(key, this.seed, this.hash);
    return this.ofHash(this.hash);
  }

  /** The positions of the key whose hash is words `at` to `at + 3` of `words` (a batch's hashes, core's hashBatch). */
  ofWords(words: Int32Array, at: number): Float64Array {
    const hash = this.hash;
    hash[0] = words[at]!;
    hash[1] = words[at + 1]!;
    hash[2] = words[at + 2]!;
    hash[3] = words[at + 3]!;
    return this.ofHash(hash);
  }

  /** The positions of an already hashed key (the scalable filter hashes once for all sub-filters). */
  ofHash(hash: Uint32Array): Float64Array {
    derivePositions(hash, this.geometry, this.hashes, this.out, 0);
    return this.out;
  }
}

/**
 * Redis numbers the bits of a string from the most significant bit of each byte (SETBIT offset 0 is bit 7 of
 * byte 0); bloomkit's payload from the least significant (bit i is bit i mod 8 of byte ⌊i/8⌋). Mapping offsets
 * with i XOR 7 makes GETRANGE return exactly the bloomkit payload. Positions pass 2^32, so the XOR is written as
 * 8⌊i/8⌋ + 7 − (i mod 8), with i mod 8 = i − 8⌊i/8⌋: exact for every integer i < 2^53 (the division by 8 is exact),
 * and no floating-point `%`, which V8 compiles to a call when i is not a small integer.
 */
export function redisBitOffset(i: number): number {
  const byteStart = 8 * Math.floor(i / 8);
  return byteStart + 7 - (i - byteStart);
}

/**
 * BITFIELD integers are read most significant bit first. A 4-bit counter i is nibble i mod 2 of byte ⌊i/2⌋, low
 * nibble first, so it sits at bit offset 8⌊i/2⌋ + 4 when i is even and 8⌊i/2⌋ when odd; an 8-bit counter i is
 * byte i, offset 8i. As in {@link redisBitOffset}, i mod 2 is i − 2⌊i/2⌋.
 */
export function redisCounterOffset(i: number, counterBits: number): number {
  if (counterBits === 8) return 8 * i;
  const byte = Math.floor(i / 2);
  return 8 * byte + (i - 2 * byte === 0 ? 4 : 0);
}
