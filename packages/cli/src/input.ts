import { closeSync, constants, fstatSync, openSync, read } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { isatty, ReadStream } from 'node:tty';

/**
 * An input to read blocks of bytes from: a regular file, or a pipe, FIFO, socket or terminal.
 *
 * A regular file is read with `fs.read` in libuv's thread pool: such a read always returns. A pipe or a terminal
 * is read through a libuv stream (epoll/kqueue), never by a thread blocked in read(2): a thread pool read waiting
 * for input that never comes could not be cancelled, and libuv joins its threads at exit, so a run stopped by a
 * signal while waiting for input would never exit. A stream also copes with a descriptor another process made
 * non-blocking (a pipe shared with a Node parent).
 */
export interface Input {
  /** Reads at most `length` bytes into `buffer` at `offset`; 0 at end of input. */
  read(buffer: Buffer, offset: number, length: number): Promise<number>;
  /** Stops reading and releases the descriptor (an opened file is closed; stdin is left open). */
  close(): void;
}

/**
 * The input `file` (`-` is stdin). Opened without blocking: a FIFO that no writer has opened yet would otherwise hold
 * the main thread in open(2), where no stop signal is seen; its stream then waits for the writer in the event loop.
 */
export function openInput(file: string): Input {
  if (file === '-') return inputOf(0, false);
  return inputOf(openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)), true);
}

/**
 * Descriptor `fd` as an input, by what it is: a FIFO, pipe or socket as a libuv stream, a terminal as a tty stream,
 * anything else (a regular file, a device) read in the thread pool. `owned`: closed with the input.
 */
export function inputOf(fd: number, owned: boolean): Input {
  const stat = fstatSync(fd);
  if (stat.isFIFO() || stat.isSocket()) return new PipeInput(fd);
  if (stat.isCharacterDevice() && isatty(fd)) return new StreamInput(new ReadStream(fd));
  return new FileInput(fd, owned);
}

class FileInput implements Input {
  constructor(
    private readonly fd: number,
    private readonly owned: boolean,
  ) {}

  read(buffer: Buffer, offset: number, length: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const attempt = () =>
        read(this.fd, buffer, offset, length, null, (error, n) => {
          if (error === null) resolve(n);
          else if (error.code === 'EAGAIN') setTimeout(attempt, 1);
          else reject(error);
        });
      attempt();
    });
  }

  close(): void {
    if (this.owned) closeSync(this.fd);
  }
}

/** What both stream inputs share: end of input, a failure, and a reader waiting for either or for data. */
abstract class Waiting {
  protected ended = false;
  protected failure: Error | undefined;
  private waiter: (() => void) | undefined;

  /** Watches `stream`'s end and errors. */
  protected watch(stream: Readable): void {
    stream.on('end', () => {
      this.ended = true;
      this.wake();
    });
    stream.on('error', (error) => {
      this.failure = error;
      this.wake();
    });
  }

  /** 0 at end of input, the failure thrown, or undefined after waiting for the next event (read again). */
  protected async settleOrWait(): Promise<0 | undefined> {
    if (this.failure !== undefined) throw this.failure;
    if (this.ended) return 0;
    await new Promise<void>((resolve) => {
      this.waiter = resolve;
    });
    return undefined;
  }

  protected wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/** A terminal, read as a stream in paused mode; a chunk larger than the space asked for is kept for later. */
class StreamInput extends Waiting implements Input {
  private rest: Buffer | null = null;

  constructor(private readonly stream: Readable) {
    super();
    stream.pause();
    stream.on('readable', () => this.wake());
    this.watch(stream);
  }

  /** Copies every chunk already buffered, up to `length` bytes; waits only when none is. */
  async read(buffer: Buffer, offset: number, length: number): Promise<number> {
    for (;;) {
      let n = 0;
      while (n < length) {
        const chunk = this.rest ?? (this.stream.read() as Buffer | null);
        if (chunk === null) break;
        const take = Math.min(length - n, chunk.length);
        chunk.copy(buffer, offset + n, 0, take);
        this.rest = take < chunk.length ? chunk.subarray(take) : null;
        n += take;
      }
      if (n > 0) return n;
      if ((await this.settleOrWait()) === 0) return 0;
    }
  }

  close(): void {
    this.stream.destroy();
  }
}

/** Bytes libuv reads from a pipe at a time (a pipe's buffer is 64 KiB on Linux). */
const PIPE_READ_BYTES = 64 * 1024;
/** Bytes queued between libuv's reads and the reader's before the pipe is paused. */
const PIPE_QUEUE_BYTES = 1 << 20;

/**
 * A pipe, FIFO or socket read through a libuv stream whose reads land in one reused buffer (`onread`), copied into
 * a queue of at most 1 MiB that the reader drains: no Buffer is allocated per read, so a stream of any length
 * leaves no garbage behind (400 MB of 64 KiB chunks would otherwise grow the heap by tens of MB before a GC). The
 * pipe is paused while the queue is full.
 */
class PipeInput extends Waiting implements Input {
  private readonly landing = Buffer.allocUnsafe(PIPE_READ_BYTES);
  private readonly queue = Buffer.allocUnsafe(PIPE_QUEUE_BYTES);
  private queued = 0;
  private paused = false;
  private readonly socket: Socket;

  constructor(fd: number) {
    super();
    // `onread` is supported by net.Socket since Node 12 for every handle, but @types/node declares it only for
    // connect(); the cast is the declaration's gap, not a private API.
    this.socket = new Socket({
      fd,
      readable: true,
      writable: false,
      allowHalfOpen: true,
      onread: { buffer: this.landing, callback: (n: number) => this.land(n) },
    } as ConstructorParameters<typeof Socket>[0]);
    this.watch(this.socket);
  }

  async read(buffer: Buffer, offset: number, length: number): Promise<number> {
    for (;;) {
      if (this.queued > 0) {
        const n = Math.min(length, this.queued);
        this.queue.copy(buffer, offset, 0, n);
        this.queue.copyWithin(0, n, this.queued);
        this.queued -= n;
        if (this.paused && this.queue.length - this.queued >= PIPE_READ_BYTES) {
          this.paused = false;
          this.socket.resume();
        }
        return n;
      }
      if ((await this.settleOrWait()) === 0) return 0;
    }
  }

  close(): void {
    this.socket.destroy();
  }

  /** libuv read `n` bytes into the landing buffer: queue them; false pauses the pipe while the queue is full. */
  private land(n: number): boolean {
    this.landing.copy(this.queue, this.queued, 0, n);
    this.queued += n;
    this.wake();
    if (this.queue.length - this.queued < PIPE_READ_BYTES) {
      this.paused = true;
      return false;
    }
    return true;
  }
}
