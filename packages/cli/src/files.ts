import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BloomError, type FilterHeader, HEADER_BYTES, readFileHeader } from '@bloomkit/core';
import { CliError, describeError } from './errors.js';
import { type AnyFilter, decodeFilter } from './filters.js';
import { inputOf } from './input.js';
import { type Interrupts, NEVER_INTERRUPTED, untilStopped } from './interrupts.js';
import { writeAll } from './spool.js';

/** Files up to this size are read into one array; larger ones in page-sized parts (the library's 512 MiB). */
const ONE_READ_BYTES = 2 ** 30;
const PAGE_BYTES = 2 ** 29;
/** Symlinks followed before giving up (the kernel's own limit, ELOOP, is 40). */
const MAX_LINKS = 40;

/**
 * How a filter read from a file is used: `once` (a merge, an export, a lookup of a few keys: the filter works on the
 * file's bytes in place), or `batches` (`add`, `has` and `dedup` over input lines, answered a batch at a time): then
 * a file of up to {@link COPY_FOR_BATCHES_BYTES} is copied out of the bytes read, so a standard, partitioned or
 * blocked filter (or the sub-filters of a scalable one) from 256 KiB of bits gets them in a WebAssembly memory of
 * its own, where its batch kernel works. Measured: `add` of 10^7 URL lines to a 12 MB standard filter 2.08–2.21 s
 * in place, 1.29 s copied (the copy itself: a few ms); `has` 1.85 s against 1.21 s.
 */
export type FilterUse = 'once' | 'batches';

/**
 * Files up to this size are copied for {@link FilterUse} `batches` (the largest bits a kernel memory holds,
 * 512 MiB): for a moment both the bytes read and the copy are in memory. Larger files are worked on in place.
 */
const COPY_FOR_BATCHES_BYTES = 2 ** 29;

/**
 * Reads the filter file at `path`, of any kind and any size, for `use`. The header is read and checked first,
 * against the file's size (magic, version, kind, lengths: docs/FORMAT.md §1), so a foreign, truncated or newer file
 * is refused before its payload is read or allocated. A file past 1 GiB is read as parts whose payload parts are the
 * library's pages, so a 10 GiB filter is read once into its final memory, never copied. Every failure is a
 * CliError naming the file.
 */
export async function readFilterFile(
  path: string,
  use: FilterUse = 'once',
  interrupts: Interrupts = NEVER_INTERRUPTED,
): Promise<AnyFilter> {
  const { header, bytes } = await readFilterBytes(path, interrupts);
  const copy = use === 'batches' && !Array.isArray(bytes) && bytes.length <= COPY_FOR_BATCHES_BYTES;
  try {
    return decodeFilter(header, bytes, true, copy);
  } catch (error) {
    throw inFile(path, error);
  }
}

/** A filter file as read: its header (checked against the file's size) and its bytes. */
export interface FilterFileBytes {
  readonly header: FilterHeader;
  /** One array up to 1 GiB, else parts. */
  readonly bytes: Uint8Array | Uint8Array[];
}

/**
 * The bytes of a filter file, its header read and checked first, once: one array up to 1 GiB, else parts. A pipe,
 * FIFO or device (no size to check first) is read as a stream ({@link readStreamed}); waiting on it ends with a
 * CliError when a stop signal arrives.
 */
export async function readFilterBytes(
  path: string,
  interrupts: Interrupts = NEVER_INTERRUPTED,
): Promise<FilterFileBytes> {
  const stdin = path === '-' || path === '/dev/stdin';
  let fd: number;
  try {
    // Non-blocking: opening a FIFO that has no writer yet must not stop the process from seeing a signal.
    fd = stdin ? 0 : openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw inFile(path, error);
  }
  let streamed = false;
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new CliError(`${path}: is a directory, not a filter file`);
    if (stat.isFile()) return readSized(fd, stat.size, path);
    streamed = true;
  } catch (error) {
    throw inFile(path, error);
  } finally {
    // A stream is read through this same descriptor: closing and opening a FIFO again would leave its writer, for
    // that moment, with no reader (EPIPE).
    if (!stdin && !streamed) closeSync(fd);
  }
  return stdin ? readStdin(path, interrupts) : readStreamed(path, fd, interrupts);
}

/** A regular file's bytes, read by its size: its header checked against that size before the rest is read. */
function readSized(fd: number, size: number, path: string): FilterFileBytes {
  const header = readFileHeader(readRange(fd, 0, Math.min(size, HEADER_BYTES), path), size);
  if (size <= ONE_READ_BYTES) return { header, bytes: readRange(fd, 0, size, path) };
  const payloadStart = HEADER_BYTES + header.paramsLength;
  const parts = [readRange(fd, 0, payloadStart, path)];
  const trailerStart = size - 4;
  for (let at = payloadStart; at < trailerStart; at += PAGE_BYTES) {
    parts.push(readRange(fd, at, Math.min(PAGE_BYTES, trailerStart - at), path));
  }
  parts.push(readRange(fd, trailerStart, size - trailerStart, path));
  return { header, bytes: parts };
}

/** Bytes a stream's read asks for at once. */
const STREAM_CHUNK_BYTES = 2 ** 20;

/**
 * A filter through a pipe, FIFO or device, read to its end as a stream (its size is unknown until then), through
 * the same {@link Input} as keys: a pipe, FIFO or socket as a libuv stream in the event loop, so the process still
 * sees a stop signal while no writer has come or no byte arrives, and then ends with a CliError. (A read blocked in
 * the thread pool would keep even `process.exit` waiting.) A named FIFO ends once a writer has come and gone (one
 * that wrote nothing included: the kernel reports the hang-up only after a writer); an anonymous pipe (the shell's
 * `<(...)`) or a device such as /dev/null ends at its first empty read. `fd` is the descriptor `readFilterBytes`
 * opened, non-blocking; it is closed here. Memory grows with the bytes that arrive, never with what a header claims:
 * the header is checked once its 24 bytes are in, and a stream longer than its header says, or than 1 GiB, is refused.
 */
async function readStreamed(path: string, fd: number, interrupts: Interrupts): Promise<FilterFileBytes> {
  const collected = new StreamBytes(path);
  const chunk = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
  const input = inputOf(fd, true);
  try {
    for (;;) {
      const n = await untilStopped(input.read(chunk, 0, chunk.length), interrupts, path).catch(
        (error: unknown) => {
          throw error instanceof CliError ? error : inFile(path, error);
        },
      );
      if (n === 0) break;
      collected.add(new Uint8Array(chunk.subarray(0, n))); // a copy: the chunk is read into again
    }
  } finally {
    input.close();
  }
  return collected.done();
}

/** Standard input (`-`, `/dev/stdin`) that is not a regular file, as {@link readStreamed}: the process's stdin stream. */
async function readStdin(path: string, interrupts: Interrupts): Promise<FilterFileBytes> {
  const collected = new StreamBytes(path);
  const stdin = process.stdin[Symbol.asyncIterator]();
  for (;;) {
    const next = await untilStopped(stdin.next(), interrupts, path);
    if (next.done === true) break;
    collected.add(next.value as Uint8Array);
  }
  return collected.done();
}

/** The bytes of a stream as they arrive, checked against the length its header claims. */
class StreamBytes {
  private readonly chunks: Uint8Array[] = [];
  private total = 0;
  private claimed = Number.POSITIVE_INFINITY;
  constructor(private readonly path: string) {}

  add(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.total += chunk.length;
    if (this.claimed === Number.POSITIVE_INFINITY && this.total >= HEADER_BYTES) {
      const head = concat(this.chunks, HEADER_BYTES);
      this.claimed = claimedLength(head);
      // A foreign stream (/dev/zero, another format) is refused by its header, as a file is, not for its length.
      try {
        readFileHeader(head, this.claimed);
      } catch (error) {
        throw inFile(this.path, error);
      }
    }
    if (this.total > this.claimed || this.total > ONE_READ_BYTES) {
      throw new CliError(
        `${this.path}: the stream goes on past ${Math.min(this.claimed, ONE_READ_BYTES)} bytes, ${this.total > this.claimed ? 'the length its header gives' : 'the most read through a pipe (1 GiB): write it to a file first'}`,
      );
    }
  }

  done(): FilterFileBytes {
    const bytes = concat(this.chunks, this.total);
    try {
      return { header: readFileHeader(bytes, this.total), bytes };
    } catch (error) {
      throw inFile(this.path, error);
    }
  }
}

/** The file length a header's first 24 bytes claim: 24 + P + L + 4 (docs/FORMAT.md §1), checked when decoded. */
function claimedLength(head: Uint8Array): number {
  const view = new DataView(head.buffer, head.byteOffset, HEADER_BYTES);
  const payload = view.getUint32(16, true) + view.getUint32(20, true) * 2 ** 32;
  return HEADER_BYTES + view.getUint16(12, true) + payload + 4;
}

/** The first `length` bytes of `chunks`, in one array. */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= length) break;
    const take = Math.min(chunk.length, length - at);
    out.set(chunk.subarray(0, take), at);
    at += take;
  }
  return out;
}

/** Bytes [offset, offset + length) of an open file. */
function readRange(fd: number, offset: number, length: number, path: string): Uint8Array {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, offset + done);
    if (n === 0) throw new CliError(`${path}: the file shrank while it was read`);
    done += n;
  }
  return out;
}

/** Any error as a CliError that starts with the file's name (`bloomkit: FILE: problem`). */
export function inFile(path: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof BloomError) return new CliError(describeError(error, path));
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    return new CliError(describeError(Object.assign(new Error(String(code)), { code }), path));
  }
  return new CliError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * The file a write to `path` must replace: `path` itself, or, when it is a symbolic link (to any depth), the file
 * it points to, so that writing through a link updates the real file instead of replacing the link with a copy.
 * The result is absolute; its directory exists (else the error names `path`).
 */
export function writeTarget(path: string): string {
  let current = resolve(path);
  for (let hops = 0; ; hops++) {
    let isLink: boolean;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw inFile(path, error);
      isLink = false;
    }
    if (!isLink) break;
    if (hops === MAX_LINKS) throw new CliError(`${path}: too many levels of symbolic links`);
    current = resolve(dirname(current), readlinkSync(current));
  }
  try {
    return join(realpathSync(dirname(current)), basename(current));
  } catch (error) {
    throw inFile(path, error);
  }
}

/**
 * Writes a filter to `target` (a path from {@link writeTarget}) atomically: its parts go to a new temporary file
 * beside the target, which is fsynced and then renamed over the target, and the directory is fsynced so the rename
 * survives a crash. A process killed at any moment leaves either the old file or the new one, never a torn one.
 *
 * The temporary file's name holds 64 random bits and it is created with O_CREAT|O_EXCL|O_NOFOLLOW: a link that
 * someone planted under a predictable name cannot redirect the write to another file. A killed writer's
 * temporary file is removed by the next writer (see {@link removeStaleTemps}, run under the file's lock).
 */
export function writeFilterFile(target: string, filter: AnyFilter, shownAs: string = target): void {
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
  let fd: number;
  try {
    fd = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o644,
    );
  } catch (error) {
    throw inFile(shownAs, error);
  }
  try {
    for (const part of filter.serializeParts()) writeAll(fd, part, 0, part.length);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw inFile(shownAs, error);
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (error) {
    unlinkSync(temp);
    throw inFile(shownAs, error);
  }
  syncDirectory(dirname(target));
}

/** Whether an output path names stdout: `-`, or `/dev/stdout` (which names the pipe or terminal, not a file). */
export function isStdout(path: string): boolean {
  return path === '-' || path === '/dev/stdout';
}

/**
 * Writes a filter's bytes to stdout (`merge - …`, `pull URL -`), as a file holds them. No lock and no rename: a
 * stream is not replaced, it is written once; a reader that stops early ends the run with EPIPE.
 */
export function writeFilterToStdout(filter: AnyFilter): void {
  try {
    for (const part of filter.serializeParts()) writeAll(1, part, 0, part.length);
  } catch (error) {
    throw inFile('stdout', error);
  }
}

/** Temporary files of {@link writeFilterFile} (random hex) and of versions before it (a process id). */
function isTempOf(name: string, target: string): boolean {
  const prefix = `.${basename(target)}.`;
  if (!name.startsWith(prefix) || !name.endsWith('.tmp')) return false;
  return /^(?:[0-9a-f]{16}|\d+)$/.test(name.slice(prefix.length, -'.tmp'.length));
}

/**
 * Removes the temporary files a killed writer of `target` left. Only safe while holding `target`'s lock: every
 * writer holds it for its whole write, so no temporary file of `target` is in use meanwhile.
 */
export function removeStaleTemps(target: string): void {
  let names: string[];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    if (!isTempOf(name, target)) continue;
    try {
      unlinkSync(join(dirname(target), name));
    } catch {
      // Removed by someone else, or not ours to remove: leave it.
    }
  }
}

/** fsync of a directory makes a rename in it durable (POSIX); platforms that refuse it need no more. */
function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; its rename is already durable enough for our guarantee (old or new).
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
