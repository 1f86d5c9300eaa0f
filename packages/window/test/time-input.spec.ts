import { FormatError, InvalidArgumentError } from '@bloomkit/core';
import { assertInSlices, depth, upperBoundCount, urlKeys } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';

// A time window's clock readings are input (docs/FORMAT.md §3.6): they may step back, jump years, repeat, be NaN
// or call back into the filter. Whatever they do, no generation takes more than g keys, every file the filter
// writes it reads, a far jump ends at most k + l generations, and the rate holds.

const T = 1_700_000_000_000;
const MINUTE = 60_000;

/** Whether two byte arrays hold the same bytes. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** A clock the test moves: `clock.now` is its reading. */
function testClock(start: number): { now: number; read: () => number } {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

/** The ring's invariants: the newest generation below g, the others at most g, and the file reads back. */
function expectValid(filter: WindowBloomFilter): void {
  const ring = filter.ring();
  ring.keys.forEach((held, j) => {
    expect(held).toBeLessThanOrEqual(j === ring.newest ? filter.generation - 1 : filter.generation);
  });
  const bytes = filter.serialize();
  expect(WindowBloomFilter.deserialize(bytes, { clock: () => T }).serialize()).toEqual(bytes);
}

function countPresent(filter: WindowBloomFilter, keys: readonly string[]): number {
  return filter.hasMany(keys).filter(Boolean).length;
}

describe('a time window takes clock readings as input', () => {
  it('a clock 60 s behind, then on time: no generation past g, every file it writes it reads', () => {
    // The issue's `dedup --window 1m --state S`: one run on time, one with the clock 60 s behind, one on time.
    const clock = testClock(T);
    let filter = WindowBloomFilter.create(1_000, 0.01, { duration: MINUTE, clock: clock.read, seed: 4 });
    const keys = urlKeys(9_000, 'behind', 4);
    const run = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        clock.now += 2;
        filter.add(keys[i]!);
      }
      const file = filter.serialize();
      filter = WindowBloomFilter.deserialize(file, { clock: clock.read });
      expectValid(filter);
    };
    run(0, 3_000);
    clock.now -= MINUTE;
    run(3_000, 6_000);
    clock.now += MINUTE;
    run(6_000, 9_000);
    // Generations ended by count while the clock lagged: the last `window` keys are all present.
    expect(countPresent(filter, keys.slice(-1_000))).toBe(1_000);
  });

  it('a clock that steps back 5 s before every batch: serialize never refuses, the window holds', () => {
    const clock = testClock(T);
    const filter = WindowBloomFilter.create(2_000, 0.01, { duration: MINUTE, clock: clock.read, seed: 2 });
    const keys = urlKeys(20_000, 'steps', 2);
    for (let i = 0; i < keys.length; i += 500) {
      clock.now += i % 1_000 === 0 ? -5_000 : 5_100;
      filter.addAll(keys.slice(i, i + 500));
      expectValid(filter);
    }
    expect(countPresent(filter, keys.slice(-2_000))).toBe(2_000);
  });

  it('a reading years ahead ends k + l generations at most; back on time, the rate and the window hold', () => {
    const clock = testClock(T);
    const filter = WindowBloomFilter.create(1_000, 0.01, { duration: MINUTE, clock: clock.read, seed: 3 });
    filter.addAll(urlKeys(1_000, 'before', 3));
    const slices = filter.hashes + filter.ageSlices;
    clock.now = T + 10 * 365 * 24 * 3_600_000;
    filter.add('one reading, ten years ahead');
    const jumped = filter.ring();
    // Every slice was cleared once, then the rest of the gap passed at once: the newest generation began at the
    // reading, and holds the one key.
    expect(jumped.starts[jumped.newest]).toBe(clock.now);
    expect(jumped.keys.reduce((a, b) => a + b, 0)).toBe(1);
    clock.now = T + 1_000;
    const keys = urlKeys(30_000, 'after', 3);
    for (let i = 0; i < keys.length; i += 1_000) {
      clock.now += 10;
      filter.addAll(keys.slice(i, i + 1_000));
      expectValid(filter);
    }
    expect(countPresent(filter, keys.slice(-1_000))).toBe(1_000);
    const absent = urlKeys(50_000, 'never', 3);
    expect(countPresent(filter, absent)).toBeLessThanOrEqual(upperBoundCount(0.01, absent.length));
    expect(slices).toBe(filter.hashes + filter.ageSlices);
  });

  it('reading the clock twice at the same time changes nothing, whatever the gap and the period (FORMAT §3.6)', () => {
    // The cap of an idle gap used to align the newest start to whole periods, end + P·⌊(t − end)/P⌋; in binary64
    // that can leave start + P ≤ t (found at a 2 ms duration near t = 6.6·10^13), so a second lookup at the same
    // reading ended one more generation. Tiny periods (1–7 ms over up to 255 slices) and readings up to 2^47 ms.
    let state = 0x2545f491;
    const next = (): number => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state / 2 ** 32;
    };
    let changed = 0;
    for (const duration of [1, 2, 3, 7]) {
      for (const window of [10, 1_000, 100_000]) {
        const clock = testClock(1e12);
        const filter = WindowBloomFilter.create(window, 0.01, { duration, clock: clock.read, seed: 1 });
        for (let i = 0; i < 300; i++) {
          clock.now += next() * next() * 2 ** 40;
          if (clock.now > 2 ** 47) clock.now = 1e12 + i;
          if (i % 3 === 0) filter.add(`key ${i}`);
          filter.has('first reading');
          const once = filter.serialize();
          filter.has('second reading');
          if (!equalBytes(once, filter.serialize())) changed++;
        }
      }
    }
    expect(changed).toBe(0);
  });

  it('a generation that starts in the future: past the horizon refused, at the horizon bounded and at its rate', () => {
    const sizing = { window: 1_000, fpr: 0.01, seed: 5, duration: MINUTE };
    const made = WindowBloomFilter.create(1_000, 0.01, { duration: MINUTE, seed: 5, clock: () => T });
    const ring = made.ring();
    const shifted = (top: number) => ({
      ...ring,
      starts: ring.starts.map((start) => start - T + top),
    });
    for (const top of [1e300, 2 ** 47 + 1, Number.POSITIVE_INFINITY]) {
      expect(() => WindowBloomFilter.fromRing(sizing, shifted(top))).toThrow(FormatError);
    }
    expect(() => WindowBloomFilter.fromRing(sizing, shifted(1e300))).toThrow(
      /a time in \[-2\^49, 2\^47\] ms/,
    );
    // At the horizon itself: generations end by count while the clock is behind them, so adds stay bounded.
    const future = WindowBloomFilter.fromRing(sizing, shifted(2 ** 47), { clock: () => T });
    const keys = urlKeys(20_000, 'future', 5);
    for (let i = 0; i < keys.length; i += 2_000) {
      for (const key of keys.slice(i, i + 1_000)) future.add(key);
      future.addAll(keys.slice(i + 1_000, i + 2_000));
      expectValid(future);
    }
    expect(countPresent(future, keys.slice(-1_000))).toBe(1_000);
    const absent = urlKeys(50_000, 'never', 5);
    expect(countPresent(future, absent)).toBeLessThanOrEqual(upperBoundCount(0.01, absent.length));
  });

  it('readings that are not times are refused with a typed error and change nothing', () => {
    const clock = { now: T as unknown };
    const filter = WindowBloomFilter.create(100, 0.01, {
      duration: MINUTE,
      clock: () => clock.now as number,
    });
    filter.addAll(urlKeys(50, 'kept', 6));
    const before = filter.serialize();
    for (const reading of [Number.NaN, -1, 2 ** 47 + 1, Number.POSITIVE_INFINITY, '5', undefined]) {
      clock.now = reading;
      for (const call of [
        () => filter.add('x'),
        () => filter.has('x'),
        () => filter.addAll(['x', 'y']),
        () => filter.hasMany(['x']),
        () => filter.clear(),
        () => filter.reach(),
      ]) {
        expect(call).toThrow(InvalidArgumentError);
        expect(call).toThrow(/the clock must return milliseconds since the epoch in \[0, 2\^47\]/);
      }
      expect(filter.serialize()).toEqual(before);
    }
    clock.now = T;
    expect(filter.has('x')).toBe(false);
  });

  it('a clock that calls back into its filter is refused; one that uses another filter leaves addAll whole', () => {
    let filter: WindowBloomFilter | undefined;
    const reentrant = WindowBloomFilter.create(100, 0.01, {
      duration: MINUTE,
      clock: () => {
        filter?.has('inside');
        return T;
      },
    });
    filter = reentrant;
    expect(() => reentrant.add('x')).toThrow(/the clock called back into this filter/);
    expect(() => reentrant.add('x')).toThrow(InvalidArgumentError);
    filter = undefined;
    expect(reentrant.add('x')).toBe(true);
    // A clock that runs another filter's batches (they share the module's batch buffer) between the runs of one.
    const other = WindowBloomFilter.create(1_000, 0.01, { seed: 9 });
    const probes = urlKeys(3_000, 'other', 7);
    const busy = WindowBloomFilter.create(10_000, 0.01, {
      duration: MINUTE,
      clock: () => {
        other.hasMany(probes);
        return T;
      },
    });
    const keys = urlKeys(9_000, 'whole', 7);
    expect(busy.addAll(keys)).toBeGreaterThan(8_900);
    expect(countPresent(busy, keys)).toBe(9_000);
  });

  it('reach().since: every key added after it is present, also when a generation fills within one millisecond', () => {
    const clock = testClock(T);
    const filter = WindowBloomFilter.create(200, 0.01, { duration: MINUTE, clock: clock.read, seed: 1 });
    const added: [string, number][] = [];
    const keys = urlKeys(5_000, 'since', 1);
    keys.forEach((key, i) => {
      // Ten keys a millisecond: generations end by count inside a millisecond.
      if (i % 10 === 0) clock.now += 1;
      filter.add(key);
      added.push([key, clock.now]);
      if (i % 97 === 0) {
        const { since } = filter.reach();
        const recent = added.filter(([, at]) => at > since!).map(([k]) => k);
        expect(countPresent(filter, recent)).toBe(recent.length);
      }
    });
  });

  it('any sequence of readings keeps the state valid: back, years ahead, repeated, at 0 and 2^47 (property)', async () => {
    const step = fc.oneof(
      fc.integer({ min: -MINUTE * 10, max: MINUTE * 10 }),
      fc.constantFrom(0, -T, 2 ** 47, 10 * 365 * 86_400_000, -10 * 365 * 86_400_000),
    );
    // Heavy runs (up to 30 steps of 300 keys, the state checked after each): 10 a slice, the worker answering between.
    await assertInSlices(
      fc.property(
        fc.array(fc.record({ step, keys: fc.integer({ min: 0, max: 300 }), batch: fc.boolean() }), {
          maxLength: 30,
        }),
        fc.integer({ min: 20, max: 400 }),
        (ops, window) => {
          const clock = testClock(T);
          const filter = WindowBloomFilter.create(window, 0.01, { duration: 5_000, clock: clock.read });
          let serial = 0;
          for (const op of ops) {
            clock.now = Math.min(2 ** 47, Math.max(0, clock.now + op.step));
            const keys = Array.from({ length: op.keys }, () => `k${serial++}`);
            if (op.batch) filter.addAll(keys);
            else for (const key of keys) filter.add(key);
            // The keys just added are present whatever the clock did.
            expect(countPresent(filter, keys.slice(-Math.min(keys.length, window)))).toBe(
              Math.min(keys.length, window),
            );
            expectValid(filter);
          }
        },
      ),
      { numRuns: depth(150), seed: 40, sliceRuns: 10 },
    );
  });
});

describe('the reader refuses a state the writer never leaves', () => {
  it("a newest generation that is full, an older one past g, starts out of their ages' order, a duration past 2^40", () => {
    const count = WindowBloomFilter.create(40, 0.01, { seed: 1 });
    count.addAll(urlKeys(23, 'full', 1));
    const ring = count.ring();
    const g = count.generation;
    const keysWith = (j: number, held: number) => ring.keys.map((n, i) => (i === j ? held : n));
    const sizing = { window: 40, fpr: 0.01, seed: 1 };
    expect(() => WindowBloomFilter.fromRing(sizing, { ...ring, keys: keysWith(ring.newest, g) })).toThrow(
      /more than the newest generation holds at rest, g − 1 =/,
    );
    const older = (ring.newest + 1) % ring.keys.length;
    expect(() => WindowBloomFilter.fromRing(sizing, { ...ring, keys: keysWith(older, g + 1) })).toThrow(
      FormatError,
    );
    expect(() => WindowBloomFilter.fromRing(sizing, { ...ring, keys: keysWith(older, g) })).not.toThrow();
    const timed = WindowBloomFilter.create(40, 0.01, { seed: 1, duration: MINUTE, clock: () => T }).ring();
    const timedSizing = { ...sizing, duration: MINUTE };
    const swapped = [...timed.starts];
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    expect(() => WindowBloomFilter.fromRing(timedSizing, { ...timed, starts: swapped })).toThrow(
      /starts at .*, after the younger generation/,
    );
    expect(() =>
      WindowBloomFilter.fromRing(timedSizing, { ...timed, starts: timed.starts.map(() => -0) }),
    ).toThrow(FormatError);
    expect(() => WindowBloomFilter.create(10, 0.01, { duration: 2 ** 40 + 1 })).toThrow(/\[1, 2\^40\]/);
    expect(WindowBloomFilter.create(10, 0.01, { duration: 2 ** 40, clock: () => T }).duration).toBe(2 ** 40);
  });
});
