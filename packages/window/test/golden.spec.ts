import { goldenAbsentKeys, goldenKeys, readGolden } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';

// test/golden/window-count-v1.blmk: WindowBloomFilter.create(40, 0.01, { seed: 42 }) after goldenKeys() (140
// keys), so it has shifted many times and forgotten most of them. test/golden/window-time-v1.blmk: the same with
// { duration: 60000 } and a clock that starts at 1.7·10^12 ms and moves 250 ms before each add. Format version 1,
// frozen: never regenerate them.
const START = 1_700_000_000_000;

function countFilter(): WindowBloomFilter {
  const filter = WindowBloomFilter.create(40, 0.01, { seed: 42 });
  for (const key of goldenKeys()) filter.add(key);
  return filter;
}

function timeFilter(): { filter: WindowBloomFilter; clock: { now: number } } {
  const clock = { now: START };
  const filter = WindowBloomFilter.create(40, 0.01, { seed: 42, duration: 60_000, clock: () => clock.now });
  for (const key of goldenKeys()) {
    clock.now += 250;
    filter.add(key);
  }
  return { filter, clock };
}

describe('golden file window-count-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/window-count-v1.blmk', import.meta.url));

  it('decodes to the shape, state and answers it was written with', () => {
    const filter = WindowBloomFilter.deserialize(bytes);
    expect([filter.window, filter.fpr, filter.seed, filter.hashes, filter.ageSlices]).toEqual([
      40, 0.01, 42, 7, 8,
    ]);
    expect([filter.generation, filter.sliceBits, filter.bits, filter.count, bytes.length]).toEqual([
      5, 64, 960, 139, 452,
    ]);
    expect(filter.reach()).toEqual({ keys: 40, since: undefined });
    for (const key of goldenKeys().slice(-40)) expect(filter.has(key)).toBe(true);
    expect(goldenAbsentKeys().filter((key) => filter.has(key)).length).toBe(15);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    expect(countFilter().serialize()).toEqual(bytes);
  });
});

describe('golden file window-time-v1.blmk', () => {
  const bytes = readGolden(new URL('./golden/window-time-v1.blmk', import.meta.url));

  it('decodes with its generations start times; with the clock where it stopped, the last minute is present', () => {
    const { clock } = timeFilter();
    const filter = WindowBloomFilter.deserialize(bytes, { clock: () => clock.now });
    expect([filter.window, filter.duration, filter.seed]).toEqual([40, 60_000, 42]);
    // 250 ms per key: the last 240 keys came within the minute, but at most 40 per minute are promised, so the
    // filter kept its rate by ending generations early; the last `reach().keys` keys are present.
    const { keys, since } = filter.reach();
    expect([keys, since, filter.hashes, filter.ageSlices, filter.generation, bytes.length]).toEqual([
      86,
      START + 13_500,
      7,
      9,
      10,
      604,
    ]);
    for (const key of goldenKeys().slice(-keys)) expect(filter.has(key)).toBe(true);
    expect(filter.shortened).toBe(true);
  });

  it('is what the same filter serializes to today, byte for byte', () => {
    expect(timeFilter().filter.serialize()).toEqual(bytes);
  });
});
