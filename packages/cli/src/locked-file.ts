import { lstatSync, statSync } from 'node:fs';
import { CliError } from './errors.js';
import { removeStaleTemps, writeTarget } from './files.js';
import type { Interrupts } from './interrupts.js';
import { FileLock } from './lock.js';

/** How a writer of a filter file waits for another writer. */
export interface WriterOptions {
  /** Seconds to wait for another writer's lock (`--wait`). */
  readonly wait: number;
  readonly interrupts: Interrupts;
}

/**
 * Runs a read-modify-write of the filter file `path` as the only writer: resolves `path` through symbolic links to
 * the file a write must replace, takes that file's lock (waiting for another writer up to `options.wait`), removes
 * temporary files a killed writer left, and hands `use` the resolved path to read and write. The lock is released
 * when `use` settles, however it ends. A file with other hard links is refused before anything is read.
 */
export async function withLockedFile<T>(
  path: string,
  options: WriterOptions,
  use: (target: string) => T | Promise<T>,
): Promise<T> {
  refuseNonRegular(path);
  const target = writeTarget(path);
  const lock = await FileLock.acquire(target, options.wait, options.interrupts);
  try {
    refuseHardLinks(target, path);
    removeStaleTemps(target);
    return await use(target);
  } finally {
    lock.release();
  }
}

/**
 * A filter file is replaced by a new one, so what `path` names (its links followed) must be a regular file or
 * nothing yet: a FIFO, a device or a socket would be replaced by a file, its reader left waiting, and `/dev/stdout`
 * names a pipe or a terminal, beside which no lock can be made. A CliError before the lock is taken.
 */
function refuseNonRegular(path: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return; // Not there yet (or not reachable: the lock and the write say why).
  }
  if (stat.isFile() || stat.isDirectory()) return; // A directory: the reader and the writer say so.
  const what = stat.isFIFO() ? 'a FIFO' : stat.isSocket() ? 'a socket' : 'a device';
  throw new CliError(
    `${path}: is ${what}, not a regular file; a filter file is replaced by a new file (atomically), so it must be a regular file or absent (merge, intersect and pull write to stdout with -)`,
  );
}

/**
 * A write replaces the file with a new one (atomically, by rename), which would leave the file's other hard links
 * holding the old filter: two names that were one file would go apart silently. Such a file is a CliError before
 * anything is read or written (a symbolic link is followed instead, so it stays one file).
 */
function refuseHardLinks(target: string, shownAs: string): void {
  let links: number;
  try {
    const stat = lstatSync(target);
    if (!stat.isFile()) return; // Not there yet, or not a file (the reader says what it is): nothing to split.
    links = stat.nlink;
  } catch {
    return;
  }
  if (links > 1) {
    throw new CliError(
      `${shownAs}: has ${links} hard links; writing it replaces it with a new file (atomically), which the other names would not follow: keep one name (a symbolic link is followed) or copy the file`,
    );
  }
}
