import { upperBoundCount, urlKeyChunks, urlKeys, yieldToRunner } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';

// The acceptance: windows of 10^3, 10^5 and 10^6 keys at p = 10^-2 and 10^-3, streaming 20 windows of
// distinct keys. At checkpoints that fall anywhere in a generation: every one of the last `window` keys is
// present; never-added keys are present at most at the target (99.9% bound); keys older than the forgetting
// horizon, (k + l)·g keys back, are present at most at the target too.

/** Keys probed for the rate at each checkpoint. */
const PROBES = 100_000;

function countPresent(filter: WindowBloomFilter, keys: readonly string[]): number {
  let n = 0;
  for (const key of keys) if (filter.has(key)) n++;
  return n;
}

describe('a count window on an endless stream', () => {
  const absent = urlKeys(PROBES, 'never-added', 3);
  for (const window of [1_000, 100_000, 1_000_000]) {
    for (const fpr of [1e-2, 1e-3]) {
      it(`window ${window}, p = ${fpr}: no false negatives in the window, the rate kept, old keys forgotten`, async () => {
        const filter = WindowBloomFilter.create(window, fpr, { seed: 11 });
        const horizon = filter.horizon.keys;
        // Checkpoints land at chunk ends, 0.37 windows apart, so they fall at every phase of a generation.
        const chunk = Math.ceil(window * 0.37);
        const total = 20 * window;
        const every = window >= 1_000_000 ? 9 : window >= 100_000 ? 5 : 1;
        const recent: string[][] = [];
        let oldest: string[] | undefined;
        let seen = 0;
        let checkpoints = 0;
        let chunkIndex = 0;
        for (const keys of urlKeyChunks(total, 'stream', 5, chunk)) {
          const added = filter.addAll(keys);
          // Distinct keys: each was new to the window, save the false positives of the window itself.
          expect(added).toBeGreaterThanOrEqual(keys.length - upperBoundCount(fpr, keys.length));
          seen += keys.length;
          oldest ??= keys;
          recent.push(keys);
          // The shortest run of recent chunks that covers the last `window` keys.
          while (sumLengths(recent.slice(1)) >= window) recent.shift();
          chunkIndex++;
          await yieldToRunner();
          if (chunkIndex % every !== 0 && seen < total) continue;
          checkpoints++;
          const last = recent.flat().slice(-window);
          expect(last.length).toBe(Math.min(window, seen));
          expect(countPresent(filter, last)).toBe(last.length);
          expect(countPresent(filter, absent)).toBeLessThanOrEqual(upperBoundCount(fpr, PROBES));
          if (seen - oldest.length >= horizon * 1.05) {
            expect(countPresent(filter, oldest)).toBeLessThanOrEqual(upperBoundCount(fpr, oldest.length));
          }
          expect(filter.reach().keys).toBeGreaterThanOrEqual(
            Math.min(window, seen) - upperBoundCount(fpr, seen),
          );
          await yieldToRunner();
        }
        expect(checkpoints).toBeGreaterThanOrEqual(window >= 1_000_000 ? 6 : 10);
        expect(filter.expectedFpr()).toBeLessThanOrEqual(fpr * 1.1);
      }, 600_000);
    }
  }
});

function sumLengths(lists: readonly (readonly unknown[])[]): number {
  let n = 0;
  for (const list of lists) n += list.length;
  return n;
}

describe('a time window with an injected clock', () => {
  const absent = urlKeys(PROBES, 'never-added', 4);
  const duration = 60_000;
  for (const [window, fpr] of [
    [1_000, 1e-2],
    [10_000, 1e-3],
    [100_000, 1e-2],
  ] as const) {
    it(`${window} keys per ${duration} ms at p = ${fpr}, at a rate that varies up to the window: every key of the last duration present`, async () => {
      let now = 1_700_000_000_000;
      const filter = WindowBloomFilter.create(window, fpr, { duration, clock: () => now, seed: 9 });
      // Keys per ms between 0.05 and 1 times window/duration, varying over 7 durations: no span of `duration`
      // holds more than `window` keys. A key is added every 1/rate ms.
      const rate = (t: number) =>
        (window / duration) * (0.525 + 0.475 * Math.sin((2 * Math.PI * t) / (7 * duration)));
      const times: number[] = [];
      const keys: string[] = [];
      const start = now;
      let i = 0;
      for (const chunk of urlKeyChunks(20 * window, 'timed', 6, window)) {
        for (const key of chunk) {
          now += 1 / Math.max(rate(now - start), (0.05 * window) / duration);
          filter.add(key);
          times.push(now);
          keys.push(key);
          i++;
        }
        // A checkpoint after each window of keys, at a time between two adds.
        now += 0.5 / rate(now - start);
        const recent = keys.filter((_, j) => times[j]! >= now - duration);
        expect(countPresent(filter, recent)).toBe(recent.length);
        expect(countPresent(filter, absent)).toBeLessThanOrEqual(upperBoundCount(fpr, PROBES));
        const old = keys.filter((_, j) => times[j]! < now - filter.horizon.ms!);
        if (old.length > 0) {
          expect(countPresent(filter, old)).toBeLessThanOrEqual(upperBoundCount(fpr, old.length));
        }
        expect(filter.shortened).toBe(false);
        expect(filter.reach().since!).toBeLessThanOrEqual(now - duration);
        await yieldToRunner();
      }
      expect(i).toBe(20 * window);
    }, 600_000);
  }

  it('more keys per duration than the window: memory shortens, the rate stays, and the filter says so', () => {
    let now = 0;
    const window = 2_000;
    const fpr = 0.01;
    const filter = WindowBloomFilter.create(window, fpr, { duration, clock: () => now, seed: 2 });
    const keys = urlKeys(10 * window, 'burst', 8);
    // Four times the window per duration.
    for (const key of keys) {
      now += duration / (4 * window);
      filter.add(key);
    }
    expect(filter.shortened).toBe(true);
    expect(now - filter.reach().since!).toBeLessThan(duration);
    expect(countPresent(filter, absent)).toBeLessThanOrEqual(upperBoundCount(fpr, PROBES));
    // The last `window` keys are still present: a generation still holds g keys.
    expect(countPresent(filter, keys.slice(-filter.reach().keys))).toBe(filter.reach().keys);
    // Quiet past the horizon: everything is forgotten, and the memory spans the duration again.
    now += filter.horizon.ms! + 1;
    expect(filter.shortened).toBe(false);
    expect(countPresent(filter, keys)).toBeLessThanOrEqual(upperBoundCount(fpr, keys.length));
  });

  it('an idle filter keeps every key for its duration and forgets them all past its horizon', () => {
    let now = 5_000;
    const filter = WindowBloomFilter.create(100, 0.01, { duration: 1_000, clock: () => now });
    const keys = urlKeys(100, 'idle', 1);
    for (const key of keys) filter.add(key);
    now += 999;
    expect(countPresent(filter, keys)).toBe(100);
    now = 5_000 + filter.horizon.ms! + 1;
    expect(countPresent(filter, keys)).toBeLessThanOrEqual(upperBoundCount(0.01, 100));
    expect(filter.reach().keys).toBe(0);
  });
});
