import { ExceptionFilter } from '@bloomkit/exceptions';
import { createFilter } from '@bloomkit/filters';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnyFilter } from '../src/filters.js';
import { LineBatch } from '../src/line-batch.js';

const lines = fc.array(
  fc.uint8Array({ maxLength: 70 }).map((bytes) => bytes.map((b) => (b === 10 ? 11 : b))),
  { maxLength: 2_500 },
);

/** The lines joined by LF, as they lie in a read buffer, with their ranges. */
function buffer(parts: readonly Uint8Array[]): { chunk: Buffer; ranges: [number, number][] } {
  const chunk = Buffer.alloc(parts.reduce((sum, part) => sum + part.length + 1, 0));
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

/** Each line through a LineBatch, flushed where `cuts` says (and at the end): what it wrote, in spans, and counted. */
function run(filter: AnyFilter, chunk: Buffer, ranges: [number, number][], cuts: Set<number>) {
  const spans: string[] = [];
  let lines = 0;
  let fresh = 0;
  const batch = new LineBatch(filter, {
    write(from, start, end) {
      expect(from).toBe(chunk);
      spans.push(from.subarray(start, end).toString('latin1'));
    },
    counted(more, added) {
      lines += more;
      fresh += added;
    },
  });
  ranges.forEach(([start, end], i) => {
    batch.push(chunk, start, end, end + 1);
    if (cuts.has(i)) batch.flush();
  });
  batch.flush();
  return { written: spans.join(''), spans, lines, fresh };
}

describe('LineBatch', () => {
  it.each([
    ['blocked', { capacity: 500, fpr: 0.01, seed: 3 }],
    ['scalable', { capacity: 20, fpr: 0.01, seed: 4 }],
    ['window', { capacity: 30, fpr: 0.01, seed: 5 }],
    ['counting', { capacity: 500, fpr: 0.01 }],
  ] as const)(
    'writes the lines %s.add finds new, in order, hashing lines a batch at a time in the buffer',
    (kind, options) => {
      fc.assert(
        fc.property(lines, fc.array(fc.nat(2_500)), (parts, cuts) => {
          const batched = createFilter(kind, options) as AnyFilter;
          const twin = createFilter(kind, options) as AnyFilter;
          const { chunk, ranges } = buffer(parts);
          const fresh = ranges.filter(([start, end]) => twin.add(chunk.slice(start, end)));
          const result = run(batched, chunk, ranges, new Set(cuts));
          expect(result.written).toBe(
            fresh.map(([start, end]) => chunk.toString('latin1', start, end + 1)).join(''),
          );
          expect([result.lines, result.fresh]).toEqual([ranges.length, fresh.length]);
          expect(batched.serialize()).toEqual(twin.serialize());
        }),
        { numRuns: 25 },
      );
    },
  );

  it('answers a line repeated inside one batch as new once, and writes consecutive new lines as one span', () => {
    const filter = createFilter('blocked', { capacity: 500, fpr: 0.01 }) as AnyFilter;
    const { chunk, ranges } = buffer(
      ['a', 'b', 'a', 'a', 'c', 'b'].map((line) => new TextEncoder().encode(line)),
    );
    expect(run(filter, chunk, ranges, new Set())).toEqual({
      written: 'a\nb\nc\n',
      spans: ['a\nb\n', 'c\n'],
      lines: 6,
      fresh: 3,
    });
  });

  it('gives an exceptions filter each line as bytes, at once (its list needs the key itself)', () => {
    const filter = ExceptionFilter.create(500, 0.01);
    const { chunk, ranges } = buffer([new TextEncoder().encode('a'), new TextEncoder().encode('b')]);
    const counts: number[][] = [];
    const batch = new LineBatch(filter as unknown as AnyFilter, {
      write: () => {},
      counted: (more, added) => counts.push([more, added]),
    });
    batch.push(chunk, ranges[0]![0], ranges[0]![1], ranges[0]![1] + 1);
    expect(counts).toEqual([[1, 1]]);
    batch.push(chunk, ranges[1]![0], ranges[1]![1], ranges[1]![1] + 1);
    batch.flush();
    expect(counts).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(filter.has('a') && filter.has('b')).toBe(true);
  });
});
