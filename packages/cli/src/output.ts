import { writeSync } from 'node:fs';
import { retryWhenBusy } from './sync-io.js';

/**
 * Buffered synchronous output to a file descriptor (stdout): lines are copied into one 1 MiB buffer that is
 * written when full, so millions of lines make a few hundred writes, and memory never grows with a slow reader
 * (the write waits instead of queueing).
 */
export class Output {
  private buffer: Buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;

  constructor(private readonly fd: number = 1) {}

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

  /** Writes out everything buffered. */
  flush(): void {
    let at = 0;
    while (at < this.used) {
      const from = at;
      at += retryWhenBusy(() => writeSync(this.fd, this.buffer, from, this.used - from));
    }
    this.used = 0;
  }

  private makeRoom(length: number): void {
    this.flush();
    if (length > this.buffer.length) this.buffer = Buffer.allocUnsafe(length);
  }
}
