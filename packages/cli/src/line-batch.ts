import { batchHashes, hashRangeBatch } from '@bloomkit/core/internal';
import { type AnyFilter, type HashingFilter, takesHashes } from './filters.js';
import { KeyView } from './key-view.js';

/** Lines held before they are hashed together. */
const BATCH_LINES = 1024;

/** Where a {@link LineBatch}'s answers go, in input order. */
export interface LineSink {
  /** `chunk[start, end)`: one new line as it was read (separator included), or several consecutive ones. */
  write(chunk: Buffer, start: number, end: number): void;
  /** After the lines written so far: `lines` more lines were answered, `fresh` of them new. */
  counted(lines: number, fresh: number): void;
}

/**
 * Test-and-add of lines where they lie in the read buffer, a batch at a time. The reader hands each line to `push`
 * and calls `flush` when its block ends, before the buffer is reused. The lines' bytes are hashed together
 * (`hashRangeBatch`: one copy into WebAssembly memory and one call for up to 1024 lines) and the filter adds the
 * hashes (`addHashes`: the batch's cache lines touched together, then each key in input order), so every answer is
 * the one `filter.add(line bytes)` gives line after line, a line repeated inside a batch included. New lines that
 * follow one another in the buffer are written as one span (one copy, not one per line). No line is made a string
 * or a view. A filter without `addHashes` (an exceptions file, whose list needs the key itself) answers each line
 * as it comes, through a {@link KeyView}.
 */
export class LineBatch {
  private readonly starts = new Int32Array(BATCH_LINES);
  private readonly ends = new Int32Array(BATCH_LINES);
  private readonly nexts = new Int32Array(BATCH_LINES);
  private count = 0;
  /** The buffer the pending lines lie in. */
  private chunk: Buffer | undefined;
  /** Whether each line of the batch was new, as `addHashes` writes it. */
  private readonly answers = new Uint8Array(BATCH_LINES);
  private readonly keys = new KeyView();
  /** The filter, when it takes hashes; undefined for an exceptions file. */
  private readonly hashing: HashingFilter | undefined;

  constructor(
    private readonly filter: AnyFilter,
    private readonly sink: LineSink,
  ) {
    this.hashing = takesHashes(filter) ? filter : undefined;
  }

  /**
   * A line: its key `chunk[start, end)`, as read `chunk[start, next)`. Every line pushed until the next `flush` lies
   * in the same `chunk`, unchanged until then.
   */
  push(chunk: Buffer, start: number, end: number, next: number): void {
    if (this.hashing === undefined) {
      const isNew = this.filter.add(this.keys.of(chunk, start, end));
      if (isNew) this.sink.write(chunk, start, next);
      this.sink.counted(1, isNew ? 1 : 0);
      return;
    }
    this.chunk = chunk;
    const j = this.count++;
    this.starts[j] = start;
    this.ends[j] = end;
    this.nexts[j] = next;
    if (j + 1 === BATCH_LINES) this.flush();
  }

  /** Answers every line pushed so far, in order. */
  flush(): void {
    const chunk = this.chunk;
    const count = this.count;
    this.count = 0;
    this.chunk = undefined;
    const filter = this.hashing;
    if (chunk === undefined || count === 0 || filter === undefined) return;
    const { starts, nexts, sink } = this;
    const answers = this.answers;
    for (let from = 0; from < count; ) {
      const hashed = hashRangeBatch(chunk, starts, this.ends, from, count, filter.seed);
      const fresh = filter.addHashes(batchHashes(), hashed, answers);
      // The new lines, as spans of consecutive ones: [spanStart, spanEnd) grows while line after line is new.
      let spanStart = 0;
      let spanEnd = -1;
      for (let i = 0; i < hashed; i++) {
        if (answers[i] !== 1) continue;
        const start = starts[from + i]!;
        if (start !== spanEnd) {
          if (spanEnd >= 0) sink.write(chunk, spanStart, spanEnd);
          spanStart = start;
        }
        spanEnd = nexts[from + i]!;
      }
      if (spanEnd >= 0) sink.write(chunk, spanStart, spanEnd);
      sink.counted(hashed, fresh);
      from += hashed;
    }
  }
}
