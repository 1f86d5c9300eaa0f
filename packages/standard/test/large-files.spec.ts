import { InvalidArgumentError } from '@bloomkit/core';
import { yieldToRunner } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { StandardBloomFilter } from '../src/index.js';

describe('StandardBloomFilter past 4 GiB', () => {
  it('serializes in parts and reads back from page-sized parts in place; serialize() says to use parts', async () => {
    const bits = 2 ** 35 + 2 ** 12; // 4 GiB + 512 bytes of payload: nine pages of 2^32 bits, the last one short
    const filter = new StandardBloomFilter({ bits, hashes: 3, seed: 9, maxBytes: 2 ** 33 });
    const keys = ['a', 'b', 'https://example.com/x'];
    filter.addAll(keys);
    await yieldToRunner();
    expect(() => filter.serialize()).toThrow(InvalidArgumentError);
    expect(() => filter.serialize()).toThrow(/serializeParts/);
    const parts = filter.serializeParts();
    await yieldToRunner();
    expect(parts.reduce((n, part) => n + part.length, 0)).toBe(24 + 40 + bits / 8 + 4);
    const restored = StandardBloomFilter.deserialize(parts, { copy: false });
    await yieldToRunner();
    for (const key of keys) expect(restored.has(key)).toBe(true);
    expect(restored.has('absent')).toBe(filter.has('absent'));
    expect(restored.count).toBe(3);
    expect(restored.equals(filter)).toBe(true);
  });
});
