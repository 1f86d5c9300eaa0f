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

/**
 * The lines through a LineBatch as a reader hands them over: blocks of whole lines cut where `cuts` says, the last
 * line alone when `lastAlone` (as an input's last line without a separator comes): what it wrote, in spans, and
 * counted. `chunk` is a copy, since the batch moves new lines within a block.
 */
function run(
  filter: AnyFilter,
  source: Buffer,
  ranges: [number, number][],
  cuts: Set<number>,
  lastAlone = false,
) {
  const chunk = Buffer.from(source);
  const spans: string[] = [];
  let lines = 0;
  let fresh = 0;
  const batch = new LineBatch(filter, 10, {
    write(from, start, end) {
      expect(from).toBe(chunk);
      spans.push(from.subarray(start, end).toString('latin1'));
    },
    counted(more, added) {
      lines += more;
      fresh += added;
    },
  });
  const whole = lastAlone ? ranges.length - 1 : ranges.length;
  let blockStart = 0;
  for (let i = 0; i < whole; i++) {
    const next = ranges[i]![1] + 1;
    if (cuts.has(i) || i === whole - 1) {
      batch.lines(chunk, blockStart, next);
      blockStart = next;
    }
  }
  if (lastAlone) {
    const [start, end] = ranges[ranges.length - 1]!;
    batch.last(chunk, start, end, end);
  }
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
        fc.property(lines, fc.array(fc.nat(2_500)), fc.boolean(), (parts, cuts, lastAlone) => {
          const batched = createFilter(kind, options) as AnyFilter;
          const twin = createFilter(kind, options) as AnyFilter;
          const { chunk, ranges } = buffer(parts);
          const last = ranges.length - 1;
          // A key is its line without a CR before the LF; the last line handed alone is given its key's end.
          const fresh = ranges.filter(([start, end], i) => {
            const crlf = !(lastAlone && i === last) && end > start && chunk[end - 1] === 13;
            return twin.add(chunk.slice(start, crlf ? end - 1 : end));
          });
          const result = run(batched, chunk, ranges, new Set(cuts), lastAlone && ranges.length > 0);
          expect(result.written).toBe(
            fresh
              .map(([start, end]) =>
                chunk.toString('latin1', start, lastAlone && start === ranges[last]![0] ? end : end + 1),
              )
              .join(''),
          );
          expect([result.lines, result.fresh]).toEqual([ranges.length, fresh.length]);
          expect(batched.serialize()).toEqual(twin.serialize());
        }),
        { numRuns: 25 },
      );
    },
  );

  it("answers a line repeated inside one batch as new once, and writes a block's new lines as one span", () => {
    const filter = createFilter('blocked', { capacity: 500, fpr: 0.01 }) as AnyFilter;
    const { chunk, ranges } = buffer(
      ['a', 'b', 'a', 'a', 'c', 'b'].map((line) => new TextEncoder().encode(line)),
    );
    expect(run(filter, chunk, ranges, new Set())).toEqual({
      written: 'a\nb\nc\n',
      spans: ['a\nb\nc\n'],
      lines: 6,
      fresh: 3,
    });
  });

  it('gives an exceptions filter each line as bytes, at once (its list needs the key itself)', () => {
    const filter = ExceptionFilter.create(500, 0.01);
    const { chunk, ranges } = buffer([new TextEncoder().encode('a'), new TextEncoder().encode('b')]);
    const counts: number[][] = [];
    const written: string[] = [];
    const batch = new LineBatch(filter as unknown as AnyFilter, 10, {
      write: (from, start, end) => written.push(from.toString('latin1', start, end)),
      counted: (more, added) => counts.push([more, added]),
    });
    batch.lines(chunk, 0, ranges[1]![1] + 1);
    expect(counts).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(written).toEqual(['a\n', 'b\n']);
    expect(filter.has('a') && filter.has('b')).toBe(true);
  });
});
