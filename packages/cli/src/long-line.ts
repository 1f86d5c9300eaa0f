import { Murmur3Stream } from '@bloomkit/core/kit';
import type { DedupAdder } from './first-copies.js';
import type { LongLineHandler } from './lines.js';
import type { Output } from './output.js';
import { Spool } from './spool.js';

/**
 * `dedup` of a line longer than the read buffer (1 MiB), in constant memory: its key is hashed piece by piece
 * (MurmurHash3 is a block hash: the same hash as the whole line at once) and its bytes are spooled to an unlinked
 * temporary file; when it ends, the filter's test-and-add takes the hash, and a new line is copied from the spool
 * to the output. A 400 MB line costs the buffer and a copy buffer, not 400 MB.
 */
export class LongLineDedup implements LongLineHandler {
  private readonly stream = new Murmur3Stream();
  private readonly spool = new Spool();
  private readonly hash = new Int32Array(4);

  /** @param counted called once per long line with whether it was new (printed). */
  constructor(
    private readonly filter: DedupAdder,
    private readonly out: Output,
    private readonly counted: (isNew: boolean) => void,
  ) {}

  start(): void {
    this.stream.reset(this.filter.seed);
    this.spool.clear();
  }

  piece(chunk: Buffer, start: number, end: number): void {
    this.stream.update(chunk, start, end);
    this.spool.write(chunk, start, end);
  }

  end(chunk: Buffer, start: number, keyEnd: number, next: number): void {
    this.stream.update(chunk, start, keyEnd);
    this.stream.digestInto(this.hash);
    const isNew = this.filter.addHash(this.hash);
    if (isNew) {
      this.out.drain(this.spool);
      this.out.bytes(chunk, start, next);
    } else {
      this.spool.clear();
    }
    this.counted(isNew);
  }

  close(): void {
    this.spool.close();
  }
}
