import { readSync } from 'node:fs';
import { retryWhenBusy } from './sync-io.js';

/**
 * Splitting a byte stream into lines without decoding it: a key is the bytes of its line, so a line that is not
 * valid UTF-8 still has one stable identity, and a valid one hashes exactly as the same string does in the library
 * (the library hashes a string as its UTF-8 bytes).
 */

/** Line feed, the default separator. */
export const LF = 0x0a;
/** NUL, the separator of `-0`/`--null` (what `find -print0` writes). */
export const NUL = 0x00;
const CR = 0x0d;

/**
 * Receives each line. `chunk[start, end)` is the key: the line without its separator, and for LF lines without a
 * trailing CR. `chunk[start, next)` is the line as it appeared in the input, separator included (absent for a
 * last line that has none): what `dedup` writes out. The bytes are valid only during the call.
 */
export type LineHandler = (chunk: Buffer, start: number, end: number, next: number) => void;

/** Bytes read at a time. */
const READ_BYTES = 1 << 20;

/**
 * Calls `onLine` for every line read from the file descriptor `fd`, in order, until end of file. One buffer is
 * reused for the whole stream: lines are found with `Buffer.indexOf` (memchr), and a line cut by the end of the
 * buffer is moved to its start before the next read, so memory is one buffer plus the longest line, whatever the
 * stream's length. Reads are synchronous: a stream filter has nothing else to do while it waits.
 */
export function forEachLine(fd: number, separator: number, onLine: LineHandler): void {
  const reader = new LineReader(fd, separator);
  while (reader.next(onLine));
}

/**
 * {@link forEachLine} with a pause after each block of input: `afterBlock` is awaited before the next read (the
 * Redis dedup sends the block's lines as batches there). Lines handed to `onLine` are valid only during the call.
 */
export async function forEachLineAsync(
  fd: number,
  separator: number,
  onLine: LineHandler,
  afterBlock: () => Promise<void>,
): Promise<void> {
  const reader = new LineReader(fd, separator);
  while (reader.next(onLine)) await afterBlock();
  await afterBlock();
}

/** Reads a descriptor a block at a time into one buffer and hands out its complete lines. */
class LineReader {
  private buffer: Buffer = Buffer.allocUnsafe(READ_BYTES);
  private filled = 0;

  constructor(
    private readonly fd: number,
    private readonly separator: number,
  ) {}

  /** Reads one block and calls `onLine` for each complete line in it; false at end of input (last line included). */
  next(onLine: LineHandler): boolean {
    const separator = this.separator;
    if (this.filled === this.buffer.length) this.buffer = grow(this.buffer);
    const buffer = this.buffer;
    const n = retryWhenBusy(() => readSync(this.fd, buffer, this.filled, buffer.length - this.filled, null));
    if (n === 0) {
      const filled = this.filled;
      if (filled > 0) {
        const keyEnd = separator === LF && buffer[filled - 1] === CR ? filled - 1 : filled;
        onLine(buffer, 0, keyEnd, filled);
        this.filled = 0;
      }
      return false;
    }
    const end = this.filled + n;
    const data = buffer.subarray(0, end);
    let start = 0;
    let at = data.indexOf(separator, this.filled);
    while (at !== -1) {
      const keyEnd = separator === LF && at > start && data[at - 1] === CR ? at - 1 : at;
      onLine(data, start, keyEnd, at + 1);
      start = at + 1;
      at = data.indexOf(separator, start);
    }
    buffer.copyWithin(0, start, end);
    this.filled = end - start;
    return true;
  }
}

/** A buffer twice as large holding the same bytes (for a line longer than the buffer). */
function grow(buffer: Buffer): Buffer {
  const larger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(larger);
  return larger;
}
