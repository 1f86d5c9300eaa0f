import { urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/errors.js';
import { toyFilterClass } from './support/toy-filter.js';

const Toy = toyFilterClass('standard');
const ToyPartitioned = toyFilterClass('partitioned');

describe('BitFilter statistics', () => {
  for (const [name, Filter] of [
    ['standard', Toy],
    ['partitioned', ToyPartitioned],
  ] as const) {
    it(`${name}: estimatedCount is within 2% of the true count, expectedFpr follows the fill ratio`, () => {
      const filter = Filter.create(20_000, 0.01);
      filter.addAll(urlKeys(20_000, 'stats'));
      expect(Math.abs(filter.estimatedCount() / 20_000 - 1)).toBeLessThan(0.02);
      expect(filter.expectedFpr()).toBeCloseTo(filter.fillRatio() ** filter.hashes, 12);
      expect(filter.expectedFpr()).toBeGreaterThan(0.005);
      expect(filter.expectedFpr()).toBeLessThan(0.015);
    });
  }

  it('reports 0 for an empty filter and Infinity for a full one', () => {
    const filter = new Toy({ bits: 8, hashes: 1 });
    expect(filter.estimatedCount()).toBe(0);
    expect(filter.fillRatio()).toBe(0);
    filter.addAll(urlKeys(500, 'fill'));
    expect(filter.fillRatio()).toBe(1);
    expect(filter.estimatedCount()).toBe(Number.POSITIVE_INFINITY);
    expect(filter.union(filter).count).toBe(8);
  });
});

describe('readBitFilter', () => {
  const bytesOf = (filter: InstanceType<typeof Toy>) => filter.serialize();

  it('round-trips shape, seed, count, capacity and fpr', () => {
    const filter = Toy.create(100, 0.05);
    filter.addAll(['x', 'y']);
    const copy = Toy.deserialize(bytesOf(filter));
    expect(copy.equals(filter)).toBe(true);
    expect([copy.bits, copy.hashes, copy.seed, copy.count, copy.capacity, copy.fpr]).toEqual([
      filter.bits,
      filter.hashes,
      filter.seed,
      2,
      100,
      0.05,
    ]);
  });

  it('rejects a payload that does not match m, padding bits, and counter widths', () => {
    const filter = new Toy({ bits: 12, hashes: 2 });
    const bytes = bytesOf(filter);
    const padded = bytes.slice();
    padded[24 + 40 + 1] = 0x80; // bit 15 of a 12-bit filter
    expect(() => Toy.deserialize(padded, { verifyChecksum: false })).toThrow(
      /bits past the end of the filter are set/,
    );
    const widthed = bytes.slice();
    widthed[24 + 12] = 4;
    expect(() => Toy.deserialize(widthed, { verifyChecksum: false })).toThrow(
      /counter width must be 0, got 4/,
    );
    const resized = bytes.slice();
    resized[24] = 40; // m = 40 needs 5 payload bytes, there are 2
    expect(() => Toy.deserialize(resized, { verifyChecksum: false })).toThrow(
      /payload must be 5 bytes for 40 bits, got 2/,
    );
  });

  it('rejects a partitioned filter whose m is not a multiple of k', () => {
    const bytes = new ToyPartitioned({ bits: 12, hashes: 3 }).serialize();
    bytes[24] = 13;
    expect(() => ToyPartitioned.deserialize(bytes, { verifyChecksum: false })).toThrow(
      /bits \(13\) must be a multiple of hashes \(3\)/,
    );
    expect(() => ToyPartitioned.deserialize(new Toy({ bits: 12, hashes: 3 }).serialize())).toThrow(
      FormatError,
    );
  });
});
