import { CountingBloomFilter } from '@bloomkit/counting';
import { StandardBloomFilter } from '@bloomkit/standard';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExceptionFilter } from '../src/index.js';

// Property tests against a model: a plain filter given the same adds (and deletes) and a set of exceptions kept by
// the documented rules. For any sequence of operations, `has` must equal "the plain filter answers present (an
// added key, or a false positive) and the key is not an exception", and a key added since its last exception (and,
// for counting, not deleted as often as added) is never hidden. Small crowded filters make false positives common,
// so exceptions are exercised, not skipped.

const KEYS = Array.from({ length: 40 }, (_, i) => (i % 5 === 4 ? Uint8Array.of(0xff, i) : `key-${i}`));
const keyArb = fc.nat(KEYS.length - 1);
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), key: keyArb }),
  fc.record({ kind: fc.constant('except' as const), key: keyArb }),
  fc.record({ kind: fc.constant('remove' as const), key: keyArb }),
  fc.record({ kind: fc.constant('delete' as const), key: keyArb }),
  fc.record({ kind: fc.constant('roundTrip' as const), key: keyArb }),
);

function run(counting: boolean, ops: readonly { kind: string; key: number }[], bits: number): void {
  const make = () =>
    counting
      ? new CountingBloomFilter({ bits, hashes: 2, seed: 1, counterBits: 8 })
      : new StandardBloomFilter({ bits, hashes: 2, seed: 1 });
  let filter = ExceptionFilter.wrap(make());
  const plain = make() as StandardBloomFilter & Partial<CountingBloomFilter>;
  const exceptions = new Set<number>();
  const times = new Map<number, number>(); // adds since the last exception, net of deletes
  for (const { kind, key: i } of ops) {
    const key = KEYS[i]!;
    switch (kind) {
      case 'add': {
        const before = filter.has(key);
        expect(filter.add(key)).toBe(!before);
        plain.add(key);
        exceptions.delete(i);
        times.set(i, (times.get(i) ?? 0) + 1);
        break;
      }
      case 'except': {
        const expected = plain.has(key) && !exceptions.has(i);
        expect(filter.addException(key)).toBe(expected);
        if (plain.has(key)) {
          exceptions.add(i);
          times.delete(i);
        }
        break;
      }
      case 'remove':
        expect(filter.removeException(key)).toBe(exceptions.delete(i));
        break;
      case 'delete':
        if (!counting) break;
        // Delete only what the model says was added (deleting a never-added key is the caller's error).
        if ((times.get(i) ?? 0) === 0 && !exceptions.has(i)) break;
        if (exceptions.has(i)) {
          expect(filter.delete(key)).toBe(false);
        } else {
          expect(filter.delete(key)).toBe(plain.delete!(key));
          times.set(i, times.get(i)! - 1);
        }
        break;
      case 'roundTrip':
        filter = ExceptionFilter.deserialize(filter.serialize()) as typeof filter;
        break;
    }
    for (let j = 0; j < KEYS.length; j++) {
      const expected = plain.has(KEYS[j]!) && !exceptions.has(j);
      expect(filter.has(KEYS[j]!)).toBe(expected);
      if ((times.get(j) ?? 0) > 0) expect(filter.has(KEYS[j]!)).toBe(true);
    }
    expect(filter.exceptionCount).toBe(exceptions.size);
  }
}

describe('ExceptionFilter against its model', () => {
  it('standard: has = inner present and not an exception; an add is never hidden', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.integer({ min: 8, max: 120 }), (ops, bits) =>
        run(false, ops, bits),
      ),
      { numRuns: 400 },
    );
  });

  it('counting: the same, with deletes that never touch an exception', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.integer({ min: 8, max: 120 }), (ops, bits) =>
        run(true, ops, bits),
      ),
      { numRuns: 400 },
    );
  });
});
