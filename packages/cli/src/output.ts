import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { retryWhenBusy } from './sync-io.js';

/**
 * Buffered synchronous output to a file descriptor (stdout): lines are copied into one 1 MiB buffer that is
 * written when full, so millions of lines make a few hundred writes, and memory never grows with a slow reader
 * (the write waits instead of queueing).
 *
 * Held output (`{ held: true }`) is for answers that must not be seen before they are true: `add -v` prints
 * "added" only once the file that holds the key is committed. Until {@link release}, a full buffer goes to an
 * unlinked temporary file instead of the descriptor, so memory stays one buffer whatever the number of answers;
 * `release` then copies everything out in order.
 */
export class Output {
  private buffer: Buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  private held: boolean;
  /** The spool of held output: an unlinked temporary file, opened on first need. */
  private spool: number | undefined;
  private spooled = 0;

  constructor(
    private readonly fd: number = 1,
    options: { readonly held?: boolean } = {},
  ) {
    this.held = options.held === true;
  }

  /** Appends `source[start, end)`. */
  bytes(source: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.used + length > this.buffer.length) this.makeRoom(length);
    source.copy(this.buffer, this.used, start, end);
    this.used += length;
  }

  /** Appends a string as UTF-8. */
  text(value: string): void {
    const length = Buffer.byteLength(value);
    if (this.used + length > this.buffer.length) this.makeRoom(length);
    this.used += this.buffer.write(value, this.used);
  }

  /** Writes out everything buffered (held output: to the spool, until released). */
  flush(): void {
    if (this.held) this.toSpool();
    else writeAll(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }

  /** Held output: writes out everything held so far, in order, and stops holding. */
  release(): void {
    if (!this.held) {
      this.flush();
      return;
    }
    this.held = false;
    const spool = this.spool;
    if (spool !== undefined) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; at < this.spooled; ) {
        const n = readSync(spool, chunk, 0, Math.min(chunk.length, this.spooled - at), at);
        writeAll(this.fd, chunk, 0, n);
        at += n;
      }
      closeSync(spool);
      this.spool = undefined;
    }
    this.flush();
  }

  /** Held output: forgets what is held (the commit failed, so none of it became true). */
  discard(): void {
    if (this.spool !== undefined) closeSync(this.spool);
    this.spool = undefined;
    this.used = 0;
  }

  private toSpool(): void {
    if (this.used === 0) return;
    if (this.spool === undefined) {
      const path = join(tmpdir(), `bloomkit-held-${randomBytes(8).toString('hex')}`);
      this.spool = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
      unlinkSync(path);
    }
    writeAll(this.spool, this.buffer, 0, this.used, this.spooled);
    this.spooled += this.used;
  }

  private makeRoom(length: number): void {
    this.flush();
    if (length > this.buffer.length) this.buffer = Buffer.allocUnsafe(length);
  }
}

/** Writes `buffer[from, to)` to `fd` (at `position`, for a file), however many calls it takes. */
function writeAll(fd: number, buffer: Buffer, from: number, to: number, position?: number): void {
  let at = from;
  while (at < to) {
    const start = at;
    const where = position === undefined ? null : position + (start - from);
    at += retryWhenBusy(() => writeSync(fd, buffer, start, to - start, where));
  }
}
