import { prng, yieldToRunner } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityError, CuckooFilter } from '../src/index.js';

/**
 * The filter against a multiset model under random add / delete / has / count, in tables small enough to run full:
 * an acknowledged key is always present, `countOf` never below its copies, a delete of a held key always succeeds,
 * a refused add changes no byte, and the size is the model's total.
 */
describe('CuckooFilter against a multiset model', () => {
  it('holds for 10^4 operations × 50 runs on near-full tables', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 0, max: 0xffffffff }),
          capacity: fc.integer({ min: 1, max: 300 }),
          bucketSize: fc.constantFrom(2 as const, 4 as const, 8 as const),
          fpr: fc.constantFrom(0.2, 0.05, 0.01),
          universe: fc.integer({ min: 2, max: 1200 }),
        }),
        async ({ seed, capacity, bucketSize, fpr, universe }) => {
          await yieldToRunner();
          const filter = CuckooFilter.create(capacity, fpr, { bucketSize, seed });
          const copies = new Uint32Array(universe);
          let total = 0;
          const random = prng(seed);
          const keyOf = (i: number) => `key-${i}`;
          for (let step = 0; step < 10_000; step++) {
            const i = random() % universe;
            const key = keyOf(i);
            const op = random() % 8;
            if (op < 4) {
              const before = filter.serialize();
              const present = filter.has(key);
              check(copies[i] === 0 || present, step, 'a held key is present');
              try {
                check(filter.add(key) === !present, step, 'add answers whether the key was absent');
                copies[i]!++;
                total++;
              } catch (error) {
                if (!(error instanceof CapacityError)) throw error;
                check(same(filter.serialize(), before), step, 'a refused add changes no byte');
              }
            } else if (op < 6) {
              if (copies[i]! > 0) {
                check(filter.delete(key), step, 'a held key deletes');
                copies[i]!--;
                total--;
              } else if (!filter.has(key)) {
                check(!filter.delete(key), step, 'an absent key deletes nothing');
              }
            } else if (op === 6) {
              check(copies[i] === 0 || filter.has(key), step, 'a held key is present');
            } else {
              check(filter.countOf(key) >= copies[i]!, step, 'countOf is at least the copies');
            }
            check(filter.size === total, step, 'size is the copies held');
          }
          for (let i = 0; i < universe; i++) if (copies[i]! > 0) expect(filter.has(keyOf(i))).toBe(true);
          expect(CuckooFilter.deserialize(filter.serialize()).equals(filter)).toBe(true);
        },
      ),
      { numRuns: 50, seed: 20261128 },
    );
  });
});

function check(holds: boolean, step: number, what: string): void {
  if (!holds) throw new Error(`step ${step}: ${what}`);
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
