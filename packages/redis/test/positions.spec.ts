import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redisBitOffset, redisCounterOffset } from '../src/positions.js';

/** The offsets by BigInt arithmetic: the definitions, exact at any size. */
function bitOffsetOracle(i: number): number {
  return Number(BigInt(i) ^ 7n);
}
function counterOffsetOracle(i: number, counterBits: number): number {
  const n = BigInt(i);
  if (counterBits === 8) return Number(8n * n);
  return Number(8n * (n / 2n) + (n % 2n === 0n ? 4n : 0n));
}

describe('redisBitOffset', () => {
  it('flips the bit order within each byte: offset 0 is bit 7 of byte 0', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 15].map(redisBitOffset)).toEqual([7, 6, 5, 4, 3, 2, 1, 0, 15, 8]);
  });

  it('is i XOR 7 below and past 2^32, up to 2^53', () => {
    const edges = [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 2 ** 41 - 1, 2 ** 53 - 1];
    for (const i of edges) expect(redisBitOffset(i)).toBe(bitOffsetOracle(i));
    fc.assert(
      fc.property(fc.maxSafeNat(), (i) => {
        expect(redisBitOffset(i)).toBe(bitOffsetOracle(i));
      }),
    );
  });
});

describe('redisCounterOffset', () => {
  it('puts an even 4-bit counter in the low nibble (bit offset 4 of its byte), an odd one in the high', () => {
    expect([0, 1, 2, 3].map((i) => redisCounterOffset(i, 4))).toEqual([4, 0, 12, 8]);
    expect([0, 1, 2].map((i) => redisCounterOffset(i, 8))).toEqual([0, 8, 16]);
  });

  it('matches the definition below and past 2^32 counters', () => {
    const edges = [2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 3];
    for (const i of edges) {
      expect(redisCounterOffset(i, 4)).toBe(counterOffsetOracle(i, 4));
      expect(redisCounterOffset(i, 8)).toBe(counterOffsetOracle(i, 8));
    }
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 49 }), fc.constantFrom(4, 8), (i, bits) => {
        expect(redisCounterOffset(i, bits)).toBe(counterOffsetOracle(i, bits));
      }),
    );
  });
});
