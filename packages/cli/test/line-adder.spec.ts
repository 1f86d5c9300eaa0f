import { ExceptionFilter } from '@bloomkit/exceptions';
import { createFilter } from '@bloomkit/filters';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnyFilter } from '../src/filters.js';
import { LineAdder } from '../src/line-adder.js';

const lines = fc.array(
  fc.uint8Array({ maxLength: 70 }).map((bytes) => bytes.map((b) => (b === 10 ? 11 : b))),
  {
    maxLength: 60,
  },
);

/** The lines joined by LF, as they lie in a read buffer, with their ranges. */
function buffer(parts: readonly Uint8Array[]): { chunk: Uint8Array; ranges: [number, number][] } {
  const chunk = new Uint8Array(parts.reduce((sum, part) => sum + part.length + 1, 0));
  const ranges: [number, number][] = [];
  let at = 0;
  for (const part of parts) {
    chunk.set(part, at);
    ranges.push([at, at + part.length]);
    at += part.length;
    chunk[at++] = 10;
  }
  return { chunk, ranges };
}

describe('LineAdder', () => {
  it.each([
    ['blocked', { capacity: 500, fpr: 0.01, seed: 3 }],
    ['scalable', { capacity: 20, fpr: 0.01, seed: 4 }],
    ['window', { capacity: 30, fpr: 0.01, seed: 5 }],
    ['counting', { capacity: 500, fpr: 0.01 }],
  ] as const)('answers as %s.add of each line, hashing it in the buffer', (kind, options) => {
    fc.assert(
      fc.property(lines, (parts) => {
        const inPlace = createFilter(kind, options) as AnyFilter;
        const twin = createFilter(kind, options) as AnyFilter;
        const adder = new LineAdder(inPlace);
        const { chunk, ranges } = buffer(parts);
        for (const [start, end] of ranges) {
          expect(adder.add(chunk, start, end)).toBe(twin.add(chunk.slice(start, end)));
        }
        expect(inPlace.serialize()).toEqual(twin.serialize());
      }),
      { numRuns: 60 },
    );
  });

  it('gives an exceptions filter each line as bytes (its list needs the key itself)', () => {
    const filter = ExceptionFilter.create(500, 0.01);
    const adder = new LineAdder(filter as unknown as AnyFilter);
    const { chunk, ranges } = buffer([new TextEncoder().encode('a'), new TextEncoder().encode('b')]);
    expect(ranges.map(([start, end]) => adder.add(chunk, start, end))).toEqual([true, true]);
    expect(filter.has('a') && filter.has('b')).toBe(true);
  });
});
