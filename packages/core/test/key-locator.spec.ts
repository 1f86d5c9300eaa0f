import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { KeyLocator } from '../src/key-locator.js';
import { murmur3x86_128Into } from '../src/murmur3.js';
import { derivePartitionedPositions, derivePositions } from '../src/positions.js';

describe('KeyLocator', () => {
  it('hashes with its seed and derives the standard layout', () => {
    const locator = new KeyLocator('standard', 1000, 5, 42);
    const hash = new Uint32Array(4);
    murmur3x86_128Into('k', 42, hash);
    const expected = new Float64Array(5);
    derivePositions(hash, 1000, 5, expected);
    expect(locator.locate('k', 'F.add')).toEqual(expected);
    expect(Array.from(locator.hash)).toEqual(Array.from(hash));
  });

  it('derives the partitioned layout with s = m / k', () => {
    const locator = new KeyLocator('partitioned', 1000, 5, 0);
    expect(locator.sliceBits).toBe(200);
    const hash = new Uint32Array(4);
    murmur3x86_128Into('k', 0, hash);
    const expected = new Float64Array(5);
    derivePartitionedPositions(hash, 200, 5, expected);
    expect(locator.locate('k', 'F.add')).toEqual(expected);
  });

  it('reuses its buffer (no allocation per key) and writes batches at an offset', () => {
    const locator = new KeyLocator('standard', 97, 3, 0);
    const first = locator.locate('a', 'F');
    expect(locator.locate('b', 'F')).toBe(first);
    const batch = new Float64Array(6);
    locator.derive(locator.hash, batch, 3);
    expect(Array.from(batch.subarray(3))).toEqual(Array.from(first));
  });

  it('names the calling API for a bad key', () => {
    const locator = new KeyLocator('standard', 97, 3, 0);
    expect(() => locator.locate(7 as never, 'StandardBloomFilter.has')).toThrow(InvalidArgumentError);
    expect(() => locator.locate(7 as never, 'StandardBloomFilter.has')).toThrow(
      /^StandardBloomFilter.has: key/,
    );
  });
});
