import { batchHashes, batchLineEnds, hashLineBatch, hashRangeInto } from '@bloomkit/core/kit';
import { type AnyFilter, takesHashes } from './filters.js';
import type { DedupAdder } from './first-copies.js';
import { KeyView } from './key-view.js';
import { LF } from './lines.js';

/** Where a {@link LineBatch}'s new lines go, in input order. */
export interface LineSink {
  /** `chunk[start, end)`: new lines as they were read (separators included), one after another. */
  write(chunk: Buffer, start: number, end: number): void;
  /** After the lines written so far: `lines` more lines were answered, `fresh` of them new. */
  counted(lines: number, fresh: number): void;
}

/**
 * Test-and-add of lines where they lie in the read buffer, a block of lines at a time: the lines are found and
 * hashed together (`hashLineBatch`: in WebAssembly, up to 1024 lines a call, after one copy of their bytes), and
 * the filter adds the hashes (`addHashes`: the batch's cache lines touched together, then each key in input order),
 * so every answer is the one `filter.add(line bytes)` gives line after line, a line repeated inside a batch
 * included. The new lines are then moved together in the block, over the dropped ones (one copy per run of new
 * lines), and written out as one span. No line is made a string or a view. A filter without `addHashes` (an
 * exceptions file, whose list needs the key itself) answers each line as it comes, through a {@link KeyView}.
 */
export class LineBatch {
  /** Whether each line of a batch was new, as `addHashes` writes it. */
  private readonly answers = new Uint8Array(1024);
  /** A single line's hash words (the last line of the input, which has no separator). */
  private readonly single = new Int32Array(4);
  private readonly keys = new KeyView();
  /** The filter's test-and-add of hashes (or `adder`'s), when it takes hashes; undefined for an exceptions file. */
  private readonly hashing: DedupAdder | undefined;
  /** A line's key leaves out a CR before its separator when lines end with LF. */
  private readonly crlf: boolean;

  /** `adder`: the test-and-add of hashed lines, when not the filter's own (first-copies.ts). */
  constructor(
    private readonly filter: AnyFilter,
    private readonly separator: number,
    private readonly sink: LineSink,
    adder?: DedupAdder,
  ) {
    this.hashing = adder ?? (takesHashes(filter) ? filter : undefined);
    this.crlf = separator === LF;
  }

  /**
   * Answers the lines of `chunk[start, end)`, each ending with the separator, in order, and writes the new ones.
   * Overwrites those bytes (the new lines move toward `start`).
   */
  lines(chunk: Buffer, start: number, end: number): void {
    const filter = this.hashing;
    if (filter === undefined) {
      this.eachLine(chunk, start, end);
      return;
    }
    const answers = this.answers;
    const sink = this.sink;
    // The new lines so far are chunk[start, kept); each batch's runs of new lines are moved to `kept`.
    let kept = start;
    for (let from = start; from < end; ) {
      const count = hashLineBatch(chunk, from, end, this.separator, this.crlf, filter.seed);
      if (count === 0) throw new Error(`LineBatch.lines: no separator in [${from}, ${end})`);
      const lineEnds = batchLineEnds();
      const fresh = filter.addHashes(batchHashes(), count, answers);
      // A run of new lines, chunk[runStart, runEnd), grows while line after line is new.
      let lineStart = from;
      let runStart = from;
      let runEnd = from;
      for (let i = 0; i < count; i++) {
        const lineEnd = lineEnds[i]!;
        if (answers[i] === 1) {
          if (lineStart !== runEnd) {
            kept = moveRun(chunk, kept, runStart, runEnd);
            runStart = lineStart;
          }
          runEnd = lineEnd;
        }
        lineStart = lineEnd;
      }
      kept = moveRun(chunk, kept, runStart, runEnd);
      sink.counted(count, fresh);
      from = lineStart;
    }
    if (kept > start) sink.write(chunk, start, kept);
  }

  /** The input's last line, `chunk[start, next)` with key `chunk[start, end)`, which has no separator. */
  last(chunk: Buffer, start: number, end: number, next: number): void {
    const filter = this.hashing;
    let isNew: boolean;
    if (filter === undefined) {
      isNew = this.filter.add(this.keys.of(chunk, start, end));
    } else {
      hashRangeInto(chunk, start, end, filter.seed, this.single, 0);
      isNew = filter.addHashes(this.single, 1) === 1;
    }
    if (isNew) this.sink.write(chunk, start, next);
    this.sink.counted(1, isNew ? 1 : 0);
  }

  /** A line at a time, for a filter that needs each key itself. */
  private eachLine(chunk: Buffer, start: number, end: number): void {
    for (let lineStart = start; lineStart < end; ) {
      const at = chunk.indexOf(this.separator, lineStart);
      const keyEnd = this.crlf && at > lineStart && chunk[at - 1] === CR ? at - 1 : at;
      const isNew = this.filter.add(this.keys.of(chunk, lineStart, keyEnd));
      if (isNew) this.sink.write(chunk, lineStart, at + 1);
      this.sink.counted(1, isNew ? 1 : 0);
      lineStart = at + 1;
    }
  }
}

const CR = 0x0d;

/** Moves `chunk[from, to)` to `at` (at ≤ from) and returns where the moved bytes end. */
function moveRun(chunk: Buffer, at: number, from: number, to: number): number {
  if (at !== from && to > from) chunk.copyWithin(at, from, to);
  return at + (to - from);
}
