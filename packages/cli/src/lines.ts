import { CliError } from './errors.js';
import type { Input } from './input.js';
import { type Interrupts, NEVER_INTERRUPTED } from './interrupts.js';

/**
 * Splitting a byte stream into lines without decoding it: a key is the bytes of its line, so a line that is not
 * valid UTF-8 still has one stable identity, and a valid one hashes exactly as the same string does in the library
 * (the library hashes a string as its UTF-8 bytes).
 */

/** Line feed, the default separator. */
export const LF = 0x0a;
/** NUL, the separator of `-0`/`--null` (what `find -print0` writes). */
export const NUL = 0x00;
/** Carriage return: dropped before an LF separator (a CRLF line's key is the same as its LF twin's). */
const CR = 0x0d;

/**
 * Where the key of the line `bytes[start, end)` ends, `end` being its separator's index (or the input's end): at
 * `end`, or one before it for an LF line whose last byte is a CR.
 */
export function keyEndOf(bytes: Uint8Array, start: number, end: number, separator: number): number {
  return separator === LF && end > start && bytes[end - 1] === CR ? end - 1 : end;
}

/**
 * Receives each line. `chunk[start, end)` is the key: the line without its separator, and for LF lines without a
 * trailing CR. `chunk[start, next)` is the line as it appeared in the input, separator included (absent for a
 * last line that has none): what `dedup` writes out. The bytes are valid only during the call.
 */
export type LineHandler = (chunk: Buffer, start: number, end: number, next: number) => void;

/**
 * Receives a line longer than the read buffer, in pieces, when the reader was given one (`dedup`): memory stays one
 * buffer whatever the line's length. Without it, the buffer grows to hold the longest line.
 */
export interface LongLineHandler {
  /** A line too long for the buffer begins. */
  start(): void;
  /** The next bytes of the line, `chunk[start, end)`: all part of the key (a CR that may end it is held back). */
  piece(chunk: Buffer, start: number, end: number): void;
  /** The line's last bytes: key bytes `chunk[start, keyEnd)`, line bytes `chunk[start, next)` (as LineHandler). */
  end(chunk: Buffer, start: number, keyEnd: number, next: number): void;
}

/** Bytes read at a time. */
const READ_BYTES = 1 << 20;

/**
 * The longest line read whole, by a reader without a {@link LongLineHandler} (`add`, `has`, `delete`, `except`,
 * `dedup --redis`): its key is held in the read buffer, which doubles up to this, so an input with no separator
 * (`/dev/zero`, a binary file given by mistake) is refused at 64 MiB instead of growing until memory runs out.
 */
export const MAX_LINE_BYTES = 64 * 2 ** 20;

/** A line longer than {@link MAX_LINE_BYTES}; the input's name is added by whoever opened it (keys.ts). */
export class LineTooLongError extends CliError {
  constructor() {
    super(
      `a line is longer than ${MAX_LINE_BYTES / 2 ** 20} MiB, the longest key read (dedup, except with --redis, takes lines of any length)`,
    );
  }
}

/**
 * Receives the complete lines of a block at once: `chunk[start, end)` holds whole lines, each ending with the
 * separator (keys as {@link LineHandler} says: without it, and for LF lines without a CR before it). The handler may
 * overwrite those bytes (`dedup` moves the new lines together there); they are valid only during the call.
 */
export type LinesHandler = (chunk: Buffer, start: number, end: number) => void;

/**
 * Calls `onLine` for every line read from `input`, in order, until end of file or a stop signal; or, with
 * `onLines`, hands each block's complete lines to `onLines` at once (a caller that answers lines a batch at a time,
 * `dedup`, finds them itself) and only the input's last line, when it has no separator, to `onLine`.
 * One buffer is reused for the whole stream: lines are found with `Buffer.indexOf` (memchr), and a line cut by the
 * end of the buffer is moved to its start before the next read, so memory is one buffer plus the longest line,
 * whatever the stream's length. Each block is read asynchronously (see input.ts), so a signal is seen while the
 * read waits (a terminal, a slow pipe); the lines of a block are handled synchronously. After a stop signal no further line is
 * handed out (the caller commits what it handled): a block read but not yet split, and a line cut by the buffer's
 * end, are dropped, never half-handled.
 */
export async function forEachLine(
  input: Input,
  separator: number,
  onLine: LineHandler,
  interrupts: Interrupts = NEVER_INTERRUPTED,
  long?: LongLineHandler,
  onLines?: LinesHandler,
): Promise<void> {
  const reader = new LineReader(input, separator, interrupts, long, onLines);
  while (await reader.next(onLine));
}

/**
 * {@link forEachLine} with a pause after each block of input: `afterBlock` is awaited before the next read (the
 * Redis dedup sends the block's lines as batches there). Lines handed to `onLine` are valid only during the call.
 */
export async function forEachLineAsync(
  input: Input,
  separator: number,
  onLine: LineHandler,
  afterBlock: () => Promise<void>,
  interrupts: Interrupts = NEVER_INTERRUPTED,
): Promise<void> {
  const reader = new LineReader(input, separator, interrupts);
  while (await reader.next(onLine)) await afterBlock();
  await afterBlock();
}

/** Reads a descriptor a block at a time into one buffer and hands out its complete lines. */
class LineReader {
  private buffer: Buffer = Buffer.allocUnsafe(READ_BYTES);
  private filled = 0;
  /** True while the buffer's bytes continue a line handed to `long` in pieces. */
  private inLong = false;

  constructor(
    private readonly input: Input,
    private readonly separator: number,
    private readonly interrupts: Interrupts,
    private readonly long?: LongLineHandler,
    private readonly onLines?: LinesHandler,
  ) {}

  /**
   * Reads one block and calls `onLine` for each complete line in it; false at end of input (last line included)
   * or when a stop signal came.
   */
  async next(onLine: LineHandler): Promise<boolean> {
    const separator = this.separator;
    if (this.filled === this.buffer.length) {
      if (this.long !== undefined) this.spill(this.long);
      else if (this.buffer.length >= MAX_LINE_BYTES) throw new LineTooLongError();
      else this.buffer = grow(this.buffer);
    }
    const buffer = this.buffer;
    if (this.interrupts.interrupted) return false;
    const n = await new Promise<number>((resolve, reject) => {
      const forget = this.interrupts.onStop(() => resolve(-1));
      this.input.read(buffer, this.filled, buffer.length - this.filled).then(
        (read) => {
          forget();
          resolve(read);
        },
        (error: unknown) => {
          forget();
          reject(error);
        },
      );
    });
    if (n < 0 || this.interrupts.interrupted) return false;
    if (n === 0) {
      const filled = this.filled;
      const keyEnd = keyEndOf(buffer, 0, filled, separator);
      if (this.inLong) this.long!.end(buffer, 0, keyEnd, filled);
      else if (filled > 0) onLine(buffer, 0, keyEnd, filled);
      this.filled = 0;
      this.inLong = false;
      return false;
    }
    const end = this.filled + n;
    const data = buffer.subarray(0, end);
    let start = 0;
    let at = data.indexOf(separator, this.filled);
    if (this.inLong) {
      if (at === -1) {
        this.filled = end;
        return true;
      }
      this.long!.end(data, 0, keyEndOf(data, 0, at, separator), at + 1);
      this.inLong = false;
      start = at + 1;
      at = data.indexOf(separator, start);
    }
    if (this.onLines !== undefined) {
      const last = at === -1 ? -1 : data.lastIndexOf(separator, end - 1);
      if (last >= start) {
        this.onLines(data, start, last + 1);
        start = last + 1;
      }
    } else {
      while (at !== -1) {
        const keyEnd = keyEndOf(data, start, at, separator);
        onLine(data, start, keyEnd, at + 1);
        start = at + 1;
        at = data.indexOf(separator, start);
      }
    }
    buffer.copyWithin(0, start, end);
    this.filled = end - start;
    return true;
  }

  /**
   * The buffer is full and holds part of one line: hands its bytes to `long` as a piece, holding back a final CR
   * (it may be the CR of the line's CRLF, which is not part of the key) at the buffer's start.
   */
  private spill(long: LongLineHandler): void {
    const buffer = this.buffer;
    const filled = this.filled;
    if (!this.inLong) {
      long.start();
      this.inLong = true;
    }
    const held = this.separator === LF && buffer[filled - 1] === CR ? 1 : 0;
    long.piece(buffer, 0, filled - held);
    if (held === 1) buffer[0] = CR;
    this.filled = held;
  }
}

/** A buffer twice as large holding the same bytes (for a line longer than the buffer, without a LongLineHandler). */
function grow(buffer: Buffer): Buffer {
  const larger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(larger);
  return larger;
}
