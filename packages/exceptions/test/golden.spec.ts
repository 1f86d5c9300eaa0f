import { StandardBloomFilter } from '@bloomkit/standard';
import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ExceptionFilter } from '../src/index.js';

// test/golden/exceptions-v1.blmk: ExceptionFilter.wrap(StandardBloomFilter.create(140, 0.01, { seed: 42 })) holding
// goldenKeys(), with an exception for each of the 29 goldenAbsentKeys() it answered present. Format version 1,
// frozen: never regenerate it.
const FALSE_POSITIVES = [
  18, 57, 80, 310, 395, 490, 522, 615, 752, 900, 906, 967, 1211, 1260, 1343, 1399, 1483, 1489, 1503, 1554,
  1571, 1581, 1625, 1637, 1810, 1844, 1887, 1895, 1971,
];

describe('golden file exceptions-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/exceptions-v1.blmk', import.meta.url));

  it('decodes its nested filter and exceptions: every key present, no absent key present', () => {
    const filter = ExceptionFilter.deserialize(bytes);
    expect(filter.filter).toBeInstanceOf(StandardBloomFilter);
    expect([filter.bits, filter.hashes, filter.seed, filter.count, filter.capacity, filter.fpr]).toEqual([
      1344, 7, 42, 140, 140, 0.01,
    ]);
    expect([filter.exceptionCount, filter.exceptionBytes, bytes.length]).toEqual([29, 884, 1164]);
    for (const key of goldenKeys()) expect(filter.has(key)).toBe(true);
    expect(goldenAbsentKeys().filter((key) => filter.has(key))).toEqual([]);
    expect(goldenAbsentKeys().flatMap((key, i) => (filter.filter.has(key) ? [i] : []))).toEqual(
      FALSE_POSITIVES,
    );
    expect([...filter.exceptions()].sort()).toEqual(
      FALSE_POSITIVES.map((i) => goldenAbsentKeys()[i]!).sort(),
    );
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    const filter = ExceptionFilter.wrap(StandardBloomFilter.create(140, 0.01, { seed: 42 }));
    filter.addAll(goldenKeys());
    for (const i of [...FALSE_POSITIVES].reverse())
      expect(filter.addException(goldenAbsentKeys()[i]!)).toBe(true);
    expect(filter.serialize()).toEqual(bytes);
  });
});
