import { randomBytes } from 'node:crypto';
import { closeSync, constants, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { retryWhenBusy } from './sync-io.js';

/**
 * Bytes set aside on disk, in order, to be copied out later: an unlinked temporary file (created exclusively under a
 * random name in the system's temporary directory, then unlinked at once, so nothing is left behind whatever
 * happens to the process). Memory stays one copy buffer however much is spooled.
 */
export class Spool {
  private fd: number | undefined;
  private length = 0;

  /** Appends `bytes[start, end)`. */
  write(bytes: Uint8Array, start: number, end: number): void {
    if (this.fd === undefined) {
      const path = join(tmpdir(), `bloomkit-spool-${randomBytes(8).toString('hex')}`);
      this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
      unlinkSync(path);
    }
    writeAll(this.fd, bytes, start, end, this.length);
    this.length += end - start;
  }

  /** Writes everything spooled to `fd`, in order, and empties the spool. */
  drainTo(fd: number): void {
    if (this.fd === undefined || this.length === 0) return;
    const chunk = Buffer.allocUnsafe(Math.min(this.length, 1 << 20));
    for (let at = 0; at < this.length; ) {
      const n = readSync(this.fd, chunk, 0, Math.min(chunk.length, this.length - at), at);
      writeAll(fd, chunk, 0, n);
      at += n;
    }
    this.clear();
  }

  /** Forgets what is spooled. */
  clear(): void {
    if (this.fd !== undefined && this.length > 0) ftruncateSync(this.fd, 0);
    this.length = 0;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.length = 0;
  }
}

/** Writes `bytes[from, to)` to `fd` (at `position`, for a file), however many calls it takes. */
export function writeAll(fd: number, bytes: Uint8Array, from: number, to: number, position?: number): void {
  let at = from;
  while (at < to) {
    const start = at;
    const where = position === undefined ? null : position + (start - from);
    at += retryWhenBusy(() => writeSync(fd, bytes, start, to - start, where));
  }
}
