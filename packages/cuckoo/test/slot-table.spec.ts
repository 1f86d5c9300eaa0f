import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotTable } from '../src/slot-table.js';

/**
 * The packed slots against a plain array of the same values: every reading (get, find, scan, holdsEither, countIn)
 * agrees with the array after any writes, for every fingerprint width and bucket size, and a write stores its
 * word back without changing a bit outside its slot (the bytes after the payload stand in for a file's checksum,
 * which an in-place table has there).
 */
describe('SlotTable against an array of slots', () => {
  it('reads what was written, and a write changes no bit outside its slot', () => {
    fc.assert(
      fc.property(
        fc.record({
          bits: fc.integer({ min: 4, max: 24 }),
          size: fc.constantFrom(2, 4, 8),
          buckets: fc.integer({ min: 1, max: 40 }),
          writes: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 400 }),
          probes: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 60 }),
        }),
        ({ bits, size, buckets, writes, probes }) => {
          const slots = buckets * size;
          const table = SlotTable.empty(slots, bits);
          const tail = table.bytes.length - table.payloadBytes;
          table.bytes.fill(0xa5, table.payloadBytes);
          const model = new Array<number>(slots).fill(0);
          const largest = 2 ** bits - 1;
          for (const [slot, raw] of writes) {
            // Zero often, so that buckets hold empty slots among full ones.
            const value = raw % 3 === 0 ? 0 : raw % (largest + 1);
            table.set(slot % slots, value);
            model[slot % slots] = value;
          }
          for (let slot = 0; slot < slots; slot++) expect(table.get(slot)).toBe(model[slot]);
          expect([...table.bytes.subarray(table.payloadBytes)]).toEqual(new Array(tail).fill(0xa5));
          for (const [a, b, raw] of probes) {
            const first = a % buckets;
            const second = b % buckets;
            // A fingerprint held somewhere in the table, or any nonzero value.
            const held = model.filter((value) => value !== 0);
            const fp = raw % 2 === 0 && held.length > 0 ? held[raw % held.length]! : (raw % largest) + 1;
            const bucket = (at: number) => model.slice(at * size, (at + 1) * size);
            const firstEmpty = bucket(first).indexOf(0);
            expect(table.scan(first, size, fp)).toBe(firstEmpty < 0 ? -1 : first * size + firstEmpty);
            expect(table.sawFingerprint).toBe(bucket(first).includes(fp));
            const found = bucket(first).indexOf(fp);
            expect(table.find(first, size, fp)).toBe(found < 0 ? -1 : first * size + found);
            expect(table.holdsEither(first, second, size, fp)).toBe(
              bucket(first).includes(fp) || bucket(second).includes(fp),
            );
            expect(table.countIn(first, size, fp)).toBe(bucket(first).filter((v) => v === fp).length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
