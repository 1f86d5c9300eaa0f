import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from './errors.js';
import { type AnyFilter, decodeFilter } from './filters.js';

/** Files up to this size are read into one array; larger ones in page-sized parts (the library's 512 MiB). */
const ONE_READ_BYTES = 2 ** 30;
const PAGE_BYTES = 2 ** 29;
const HEADER_BYTES = 24;
const MAGIC = [0x42, 0x4c, 0x4d, 0x4b];

/**
 * Reads the filter file at `path`, of any kind and any size. A file past 1 GiB is read as parts whose payload
 * parts are the library's pages, so a 10 GiB filter is read once into its final memory, never copied. A file that
 * does not start with the format's magic is refused before the rest is read.
 */
export function readFilterFile(path: string, verifyChecksum = true): AnyFilter {
  return decodeFilter(readFilterBytes(path), verifyChecksum);
}

/** The bytes of a filter file: one array up to 1 GiB, else parts (see {@link readFilterFile}). */
export function readFilterBytes(path: string): Uint8Array | Uint8Array[] {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = readRange(fd, 0, Math.min(size, HEADER_BYTES));
    if (size < HEADER_BYTES || MAGIC.some((byte, i) => head[i] !== byte)) {
      throw new CliError(`${path}: not a bloomkit filter file (no "BLMK" header)`);
    }
    if (size <= ONE_READ_BYTES) return readRange(fd, 0, size);
    const paramsLength = head[12]! | (head[13]! << 8);
    const payloadStart = Math.min(HEADER_BYTES + paramsLength, size);
    const parts = [readRange(fd, 0, payloadStart)];
    const trailerStart = Math.max(payloadStart, size - 4);
    for (let at = payloadStart; at < trailerStart; at += PAGE_BYTES) {
      parts.push(readRange(fd, at, Math.min(PAGE_BYTES, trailerStart - at)));
    }
    parts.push(readRange(fd, trailerStart, size - trailerStart));
    return parts;
  } finally {
    closeSync(fd);
  }
}

/** Bytes [offset, offset + length) of an open file. */
function readRange(fd: number, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, offset + done);
    if (n === 0) throw new CliError('the file shrank while it was read');
    done += n;
  }
  return out;
}

/**
 * Writes a filter to `path` atomically: its parts go to a temporary file beside the target, which is fsynced and
 * then renamed over the target, and the directory is fsynced so the rename survives a crash. A process killed at
 * any moment leaves either the old file or the new one, never a torn one (at worst a stray temporary file, named
 * `.NAME.PID.tmp`, that the next successful write of the same process id replaces).
 */
export function writeFilterFile(path: string, filter: AnyFilter): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w', 0o644);
  try {
    for (const part of filter.serializeParts()) writeAll(fd, part);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  syncDirectory(dirname(path));
}

function writeAll(fd: number, bytes: Uint8Array): void {
  // writeSync takes at most 2 GiB at once; the library's parts are at most 512 MiB, but stay safe.
  const step = 2 ** 30;
  for (let at = 0; at < bytes.length; ) {
    at += writeSync(fd, bytes, at, Math.min(step, bytes.length - at));
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
