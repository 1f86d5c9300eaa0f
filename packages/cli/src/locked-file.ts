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
 * when `use` settles, however it ends.
 */
export async function withLockedFile<T>(
  path: string,
  options: WriterOptions,
  use: (target: string) => T | Promise<T>,
): Promise<T> {
  const target = writeTarget(path);
  const lock = await FileLock.acquire(target, options.wait, options.interrupts);
  try {
    removeStaleTemps(target);
    return await use(target);
  } finally {
    lock.release();
  }
}
