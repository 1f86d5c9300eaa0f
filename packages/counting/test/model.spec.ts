import type { CounterBits } from '@bloomkit/core/kit';
import { depth } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CountingBloomFilter } from '../src/index.js';

/**
 * Random sequences of add and delete against an exact multiset. Deletes are of keys added more times than
 * deleted, and of keys never added. A key with a positive net count must always be found, and deleting a key
 * the filter reports absent must change nothing. Deleting a never-added key that is a false positive is the
 * documented hazard of counting filters, so the model skips it.
 */
type Op =
  | { type: 'add'; key: number }
  | { type: 'delete'; key: number }
  | { type: 'deleteAbsent'; key: number };

const op = (pool: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.nat(pool - 1).map((key) => ({ type: 'add' as const, key })) },
    { weight: 2, arbitrary: fc.nat(pool - 1).map((key) => ({ type: 'delete' as const, key })) },
    { weight: 1, arbitrary: fc.nat(10_000).map((key) => ({ type: 'deleteAbsent' as const, key })) },
  );

function runModel(filter: CountingBloomFilter, ops: readonly Op[]): void {
  const net = new Map<number, number>();
  for (const step of ops) {
    if (step.type === 'add') {
      filter.add(`key-${step.key}`);
      net.set(step.key, (net.get(step.key) ?? 0) + 1);
    } else if (step.type === 'delete') {
      // Only keys added more times than deleted.
      if ((net.get(step.key) ?? 0) === 0) continue;
      expect(filter.delete(`key-${step.key}`)).toBe(true);
      net.set(step.key, net.get(step.key)! - 1);
    } else {
      const key = `never-${step.key}`;
      if (filter.has(key)) continue;
      const before = filter.clone();
      expect(filter.delete(key)).toBe(false);
      expect(filter.equals(before)).toBe(true);
      expect(filter.count).toBe(before.count);
    }
    for (const [key, times] of net) {
      if (times > 0) expect(filter.has(`key-${key}`), `key-${key} added ${times} times net`).toBe(true);
      if (times > 0) expect(filter.countOf(`key-${key}`)).toBeGreaterThanOrEqual(times > 14 ? 0 : times);
    }
  }
}

describe('CountingBloomFilter against an exact multiset', () => {
  for (const counterBits of [4, 8, 16] as CounterBits[]) {
    it(`never loses a key with a positive net count (${counterBits}-bit counters)`, () => {
      fc.assert(
        fc.property(fc.array(op(60), { maxLength: 300 }), (ops) => {
          runModel(CountingBloomFilter.create(60, 1e-4, { counterBits }), ops);
        }),
        { numRuns: depth(150) },
      );
    });
  }

  it('survives heavy repetition that saturates 4-bit counters, in a small, crowded filter', () => {
    fc.assert(
      fc.property(
        fc.array(op(4), { minLength: 100, maxLength: 400 }),
        fc.integer({ min: 16, max: 64 }),
        (ops, bits) => {
          const filter = new CountingBloomFilter({ bits, hashes: 3, counterBits: 4 });
          runModel(filter, ops);
        },
      ),
      { numRuns: depth(300) },
    );
    // And saturation really happens in these runs:
    const filter = new CountingBloomFilter({ bits: 32, hashes: 3, counterBits: 4 });
    for (let i = 0; i < 40; i++) filter.add('hot');
    expect(filter.saturatedCount()).toBeGreaterThan(0);
    for (let i = 0; i < 40; i++) filter.delete('hot');
    expect(filter.has('hot')).toBe(true);
    expect(filter.countOf('hot')).toBe(Number.POSITIVE_INFINITY);
  });
});
