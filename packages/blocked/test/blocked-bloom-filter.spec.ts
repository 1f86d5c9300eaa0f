import { BLOCK_BITS, chooseShape, FormatError, InvalidArgumentError, standardLayout } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { BlockedBloomFilter } from '../src/index.js';

/** The indexes of the set bits of a serialized single filter's payload. */
function setBits(filter: BlockedBloomFilter): number[] {
  const payload = filter.serialize().subarray(64, -4);
  const out: number[] = [];
  for (let i = 0; i < payload.length * 8; i++) if (payload[i >> 3]! & (1 << (i & 7))) out.push(i);
  return out;
}

describe('BlockedBloomFilter', () => {
  it('puts every position of a key in one 512-bit block', () => {
    const filter = new BlockedBloomFilter({ bits: 512 * 1000, hashes: 8 });
    for (let i = 0; i < 200; i++) {
      const one = new BlockedBloomFilter({ bits: 512 * 1000, hashes: 8 });
      one.add(`key-${i}`);
      const bits = setBits(one);
      expect(new Set(bits.map((b) => Math.floor(b / BLOCK_BITS))).size).toBe(1);
      filter.add(`key-${i}`);
    }
    // 200 keys over 1000 blocks: they spread (a key's block is not a function of the positions inside it).
    expect(new Set(setBits(filter).map((b) => Math.floor(b / BLOCK_BITS))).size).toBeGreaterThan(150);
  });

  it('sizes honestly: more bits than a standard filter for the same rate, in multiples of 512', () => {
    for (const p of [0.1, 0.01, 0.001, 0.0001]) {
      const blocked = BlockedBloomFilter.create(100_000, p);
      const standard = chooseShape(100_000, p, standardLayout);
      expect(blocked.bits % BLOCK_BITS).toBe(0);
      expect(blocked.bits).toBeGreaterThanOrEqual(standard.bits);
    }
    expect(new BlockedBloomFilter({ bits: 1000, hashes: 3 }).bits).toBe(1024);
  });

  it('refuses more than 2^41 bits and reads only its own kind', () => {
    expect(() => new BlockedBloomFilter({ bits: 2 ** 41 + 1, hashes: 3 })).toThrow(InvalidArgumentError);
    const bytes = new BlockedBloomFilter({ bits: 512, hashes: 3 }).serialize();
    bytes[5] = 1;
    expect(() => BlockedBloomFilter.deserialize(bytes, { verifyChecksum: false })).toThrow(FormatError);
  });

  it('estimates the count it holds from the fill', () => {
    const filter = BlockedBloomFilter.create(50_000, 0.01);
    for (let i = 0; i < 50_000; i++) filter.add(`k${i}`);
    expect(Math.abs(filter.estimatedCount() - 50_000) / 50_000).toBeLessThan(0.02);
  });

  it('hasMany and addAll (hashed a batch ahead) answer exactly as single calls', () => {
    const a = BlockedBloomFilter.create(5_000, 0.01);
    const b = BlockedBloomFilter.create(5_000, 0.01);
    const keys = Array.from({ length: 3_000 }, (_, i) => `u/${i}`);
    expect(a.addAll(keys)).toBe(keys.filter((k) => b.add(k)).length);
    expect(a.equals(b)).toBe(true);
    const probes = Array.from({ length: 2_000 }, (_, i) => `u/${i * 3}`);
    expect(a.hasMany(probes)).toEqual(probes.map((k) => a.has(k)));
  });
});
