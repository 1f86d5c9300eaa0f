import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CliError } from './errors.js';
import type { Interrupts } from './interrupts.js';
import { sleep } from './sync-io.js';

/** Default of `--wait`: how long a writer waits for another writer of the same file, in seconds. */
export const DEFAULT_WAIT_SECONDS = 10;

/** A lock-breaker that holds the break file longer than this was killed mid-break (a break takes microseconds). */
const BREAK_STALE_MS = 10_000;

/**
 * One writer at a time per filter file: an exclusive lock held for a whole read-modify-write.
 *
 * The lock is a file `.NAME.lock` beside the (symlink-resolved) target, created with an exclusive create
 * (O_CREAT|O_EXCL: atomic on every local file system, and on NFSv3+), holding the holder's process id, host and
 * process start time. A writer that finds it held waits, polling, up to its `--wait` bound, then fails with an
 * error naming the holder.
 *
 * A holder killed with SIGKILL cannot remove its lock; the next writer sees that the holder's process is gone
 * (same host, and no process with that id, or one that started at another time: a reused id) and breaks the lock
 * at once, with no stale timeout. Breaking is itself guarded by an exclusive `.NAME.lock.break` file, so that two
 * waiters who both saw the same dead holder cannot both break it, one of them deleting the lock the other has just
 * taken. A lock held from another host is never broken: its holder's liveness cannot be known from here.
 *
 * Why not a library: `proper-lockfile` (the maintained choice without a native build) keeps a lock alive by
 * touching it from a timer, and calls it stale when the touches stop for `stale` ms (at least 2 s). This command
 * runs synchronously for seconds at a time (reading or writing a multi-GB filter), so the timer would not fire and
 * a second writer would take a live lock: exactly the lost update this lock exists to prevent. Liveness by process
 * id needs no timer, and frees a killed holder's lock immediately. `flock`/`fcntl` locks need a native addon.
 */
export class FileLock {
  private constructor(
    private readonly path: string,
    private readonly token: string,
  ) {}

  /**
   * Takes the lock of `target` (a path from `writeTarget`), waiting up to `waitSeconds`, or until a stop signal
   * (then it throws, and the caller's run ends with the signal's status).
   */
  static async acquire(target: string, waitSeconds: number, interrupts: Interrupts): Promise<FileLock> {
    const path = lockPathOf(target);
    const token = JSON.stringify({ pid: process.pid, host: hostname(), start: processStart(process.pid) });
    const deadline = Date.now() + waitSeconds * 1000;
    let pause = 2;
    for (;;) {
      if (tryCreate(path, token)) return new FileLock(path, token);
      const holder = readHolder(path);
      if (holder !== undefined && isDead(holder)) {
        breakLock(path, holder.raw);
        continue;
      }
      if (holder === undefined && unreadableForLong(path)) {
        // A holder killed between creating the lock and writing its name, or a damaged lock: no one can be
        // holding it, since a live holder fills it within microseconds of creating it.
        breakLock(path, readRaw(path) ?? '');
        continue;
      }
      if (interrupts.interrupted) throw new CliError(`${target}: interrupted while waiting for its lock`);
      if (Date.now() >= deadline) {
        const who = holder === undefined ? 'another process' : describe(holder);
        throw new CliError(
          `${target}: locked by ${who}, which is writing it; gave up after ${waitSeconds} s (--wait SECONDS waits longer)`,
        );
      }
      await Promise.race([new Promise((wake) => setTimeout(wake, pause)), interrupts.stopped]);
      pause = Math.min(pause * 2, 50);
    }
  }

  /** Releases the lock (once; later calls do nothing). */
  release(): void {
    try {
      if (readFileSync(this.path, 'utf8') === this.token) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

/** `.NAME.lock` in the target's directory. */
export function lockPathOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.lock`);
}

/** Creates `path` holding `token` if it does not exist; false when it does. */
function tryCreate(path: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  return true;
}

interface Holder {
  readonly raw: string;
  readonly pid: number;
  readonly host: string;
  readonly start: string | null;
}

/** The lock file's text, or undefined when it vanished. */
function readRaw(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** True when the lock file exists, names no holder, and has not changed for {@link BREAK_STALE_MS}. */
function unreadableForLong(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > BREAK_STALE_MS;
  } catch {
    return false;
  }
}

/** The lock's holder, or undefined when the lock vanished or is being written (an empty file: created, not yet filled). */
function readHolder(path: string): Holder | undefined {
  const raw = readRaw(path);
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as { pid?: unknown; host?: unknown; start?: unknown };
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return {
      raw,
      pid: parsed.pid,
      host: parsed.host,
      start: typeof parsed.start === 'string' ? parsed.start : null,
    };
  } catch {
    return undefined;
  }
}

/** True when the holder ran on this host and its process is gone (or its id now names a later process). */
function isDead(holder: Holder): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
  const start = processStart(holder.pid);
  return holder.start !== null && start !== null && start !== holder.start;
}

/**
 * Removes the lock at `path` if it still holds `raw` (the dead holder's token), under the break file so that only
 * one waiter breaks a given dead lock.
 */
function breakLock(path: string, raw: string): void {
  const guard = `${path}.break`;
  if (!tryCreate(guard, String(process.pid))) {
    try {
      if (Date.now() - statSync(guard).mtimeMs > BREAK_STALE_MS) unlinkSync(guard);
    } catch {
      // Gone meanwhile: the other breaker finished.
    }
    sleep(1);
    return;
  }
  try {
    if (readFileSync(path, 'utf8') === raw) unlinkSync(path);
  } catch {
    // The lock vanished meanwhile.
  } finally {
    unlinkSync(guard);
  }
}

/** When process `pid` started, from /proc (Linux): tells a reused process id apart. Null elsewhere. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the command name's closing parenthesis (the name may hold spaces).
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function describe(holder: Holder): string {
  return holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
}
