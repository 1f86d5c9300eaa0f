import { closeSync, openSync } from 'node:fs';
import { forEachLine, LF, NUL } from './lines.js';

/** Where the keys of `add`, `has` and `delete` come from. */
export interface KeySource {
  /** Keys given on the command line. */
  readonly keys: readonly string[];
  /** Files of keys, one per line (`-` is stdin). */
  readonly from: readonly string[];
  /** NUL-separated keys instead of lines (`-0`). */
  readonly nul: boolean;
}

/**
 * Receives each key: a string from the command line (hashed as its UTF-8 bytes, like the library does), or the
 * bytes `chunk[start, end)` of a line.
 */
export interface KeyVisitor {
  text(key: string): void;
  bytes(chunk: Buffer, start: number, end: number): void;
}

/**
 * Visits the keys of the command line, then those of each `--from` file; with neither, the lines of stdin. Input
 * streams through one buffer, so any number of keys passes in constant memory.
 */
export function visitKeys(source: KeySource, visitor: KeyVisitor): void {
  for (const key of source.keys) visitor.text(key);
  const files = source.from.length > 0 ? source.from : source.keys.length > 0 ? [] : ['-'];
  for (const file of files) {
    withInput(file, (fd) =>
      forEachLine(fd, source.nul ? NUL : LF, (chunk, start, end) => visitor.bytes(chunk, start, end)),
    );
  }
}

/** Runs `use` on the file's descriptor (`-` is stdin), closing what it opened. */
export function withInput(file: string, use: (fd: number) => void): void {
  if (file === '-') {
    use(0);
    return;
  }
  const fd = openSync(file, 'r');
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}

/** {@link withInput} for an asynchronous reader: the file stays open until `use` settles. */
export async function withInputAsync(file: string, use: (fd: number) => Promise<void>): Promise<void> {
  if (file === '-') return use(0);
  const fd = openSync(file, 'r');
  try {
    await use(fd);
  } finally {
    closeSync(fd);
  }
}
