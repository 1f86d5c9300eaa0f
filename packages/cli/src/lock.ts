import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CliError } from './errors.js';
import type { Interrupts } from './interrupts.js';

/** Default of `--wait`: how long a writer waits for another writer of the same file, in seconds. */
export const DEFAULT_WAIT_SECONDS = 10;

/** A lock-breaker that holds the break file longer than this was killed mid-break (a break takes microseconds). */
const BREAK_STALE_MS = 10_000;

/** A lock file holds one short JSON token; anything larger was not written by a writer. */
const MAX_LOCK_BYTES = 4096;

/**
 * One writer at a time per filter file: an exclusive lock held for a whole read-modify-write.
 *
 * The lock is a file `.NAME.lock` beside the (symlink-resolved) target, created with an exclusive create that
 * follows no link (O_CREAT|O_EXCL|O_NOFOLLOW: atomic on every local file system, and on NFSv3+), holding the
 * holder's identity: process id and start time, host name, boot id and PID namespace. A writer that finds it held
 * waits, polling, up to its `--wait` bound, then fails with an error naming the holder.
 *
 * A holder killed with SIGKILL cannot remove its lock; the next writer breaks it at once, with no stale timeout,
 * when it can prove the holder gone: same host, same boot, same PID namespace (containers that share a host name,
 * `--network host` or `hostNetwork`, have pids of their own), and no process with that id, or one that started at
 * another time (a reused id). A holder it cannot judge (another host, boot or PID namespace, or a lock written
 * without them) is waited for, never broken. Breaking is itself guarded by an exclusive `.NAME.lock.break` file,
 * so that two waiters who both saw the same dead holder cannot both break it, one of them deleting the lock the
 * other has just taken.
 *
 * What others could have planted is opened without following links and without blocking (O_NOFOLLOW|O_NONBLOCK)
 * and read only when it is a regular file of at most 4 KiB: a FIFO, a link or a device under the lock's name is
 * refused with an error naming it, never read from.
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
    const token = JSON.stringify({ ...SELF, pid: process.pid, start: processStart(process.pid) });
    const deadline = Date.now() + waitSeconds * 1000;
    let pause = 2;
    for (;;) {
      if (tryCreate(path, token)) return new FileLock(path, token);
      const raw = readLock(path);
      const holder = raw === undefined ? undefined : parseHolder(raw);
      // A holder proven gone, or a lock that names none and has not changed for long (a holder killed between
      // creating it and filling it: a live one fills it within microseconds): broken, then taken at once.
      const stale =
        (holder !== undefined && isDead(holder)) ||
        (raw !== undefined && holder === undefined && unchangedForLong(path));
      if (stale && breakLock(path, raw!)) continue;
      if (interrupts.interrupted) throw new CliError(`${target}: interrupted while waiting for its lock`);
      if (Date.now() >= deadline) {
        if (stale) {
          // The holder is gone, but the break file says another waiter is breaking the lock, and it never
          // finished: a breaker that died within the last 10 s, or a file planted under that name.
          const gone =
            holder === undefined ? 'a lock that names no holder' : `${describe(holder)}, which is gone`;
          throw new CliError(
            `${target}: held by ${gone}, but ${path}.break says another process is breaking the lock; gave up after ${waitSeconds} s (if no writer runs, remove ${path}.break)`,
          );
        }
        const who = holder === undefined ? 'another process' : describe(holder);
        const judged =
          holder === undefined || canJudge(holder)
            ? ''
            : ` (from here it cannot tell whether that process is alive: if no writer runs, remove ${path})`;
        throw new CliError(
          `${target}: locked by ${who}, which is writing it; gave up after ${waitSeconds} s (--wait SECONDS waits longer)${judged}`,
        );
      }
      await Promise.race([new Promise((wake) => setTimeout(wake, pause)), interrupts.stopped]);
      pause = Math.min(pause * 2, 50);
    }
  }

  /** Releases the lock (once; later calls do nothing). */
  release(): void {
    try {
      if (readLock(this.path) === this.token) unlinkSync(this.path);
    } catch {
      // Already gone, or replaced by something that is not ours: nothing to release.
    }
  }
}

/** `.NAME.lock` in the target's directory. */
export function lockPathOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.lock`);
}

/**
 * Creates `path` holding `token` if nothing is there (not following a link planted under its name); false when
 * something is. A token that cannot be written (ENOSPC, EDQUOT) leaves no empty lock behind: the error names the lock.
 */
function tryCreate(path: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o644,
    );
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return false;
    throw lockError(path, 'could not create the lock', error);
  }
  try {
    if (writeSync(fd, token) !== Buffer.byteLength(token))
      throw Object.assign(new Error('short write'), { code: 'EIO' });
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw lockError(path, 'could not write the lock', error);
  }
  closeSync(fd);
  return true;
}

function lockError(path: string, what: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  return new CliError(`${path}: ${what} (${typeof code === 'string' ? code : String(error)})`);
}

/** Who holds a lock, as its token says. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly start: string | null;
  /** The kernel's boot id, and the holder's PID namespace: null in a lock written without them. */
  readonly boot: string | null;
  readonly pidns: string | null;
}

/** This process's place on the machine: what a holder must share with it to be judged from here. */
const SELF = { host: hostname(), boot: bootId(), pidns: pidNamespace() };

/**
 * The lock's text, or undefined when there is no lock. Opened without following a link and without blocking, and
 * read only when it is a regular file of at most 4 KiB; anything else under the lock's name is a CliError naming it.
 */
function readLock(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP')
      throw new CliError(`${path}: the lock is a symbolic link, not a lock file; remove it`);
    throw lockError(path, 'could not read the lock', error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new CliError(`${path}: the lock is not a regular file (${kindOf(stat)}); remove it`);
    }
    if (stat.size > MAX_LOCK_BYTES) {
      throw new CliError(
        `${path}: the lock is ${stat.size} bytes, more than a lock holds (${MAX_LOCK_BYTES}); remove it`,
      );
    }
    const bytes = Buffer.alloc(MAX_LOCK_BYTES + 1);
    let length = 0;
    for (let n = 1; n > 0 && length <= MAX_LOCK_BYTES; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, length);
    }
    return bytes.toString('utf8', 0, Math.min(length, MAX_LOCK_BYTES));
  } finally {
    closeSync(fd);
  }
}

function kindOf(stat: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean }): string {
  return stat.isFIFO()
    ? 'a FIFO'
    : stat.isDirectory()
      ? 'a directory'
      : stat.isSocket()
        ? 'a socket'
        : 'a device';
}

/** True when the lock (found without a holder) exists and has not changed for {@link BREAK_STALE_MS}. */
function unchangedForLong(path: string): boolean {
  try {
    return Date.now() - lstatSync(path).mtimeMs > BREAK_STALE_MS;
  } catch {
    return false;
  }
}

/** The holder a lock's text names, or undefined when it names none (an empty lock: created, not yet filled). */
function parseHolder(raw: string): Holder | undefined {
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return {
      pid: parsed.pid,
      host: parsed.host,
      start: text(parsed.start),
      boot: text(parsed.boot),
      pidns: text(parsed.pidns),
    };
  } catch {
    return undefined;
  }
}

/**
 * True when this process can tell whether the holder is alive: the same host name, boot and PID namespace, so the
 * holder's pid means the same process here.
 */
function canJudge(holder: Holder): boolean {
  return (
    holder.host === SELF.host &&
    holder.boot !== null &&
    holder.boot === SELF.boot &&
    holder.pidns !== null &&
    holder.pidns === SELF.pidns
  );
}

/** True when the holder can be judged from here and its process is gone (or its id now names a later process). */
function isDead(holder: Holder): boolean {
  if (!canJudge(holder)) return false;
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
 * one waiter breaks a given dead lock. True when the lock is gone (removed, or vanished meanwhile); false when
 * another waiter is breaking it. A lock this user may not remove (another user's, in a sticky directory) is a
 * CliError naming it.
 */
function breakLock(path: string, raw: string): boolean {
  const guard = `${path}.break`;
  if (!tryCreate(guard, String(process.pid))) {
    try {
      if (Date.now() - lstatSync(guard).mtimeMs > BREAK_STALE_MS) unlinkSync(guard);
    } catch {
      // Gone meanwhile: the other breaker finished.
    }
    return false;
  }
  try {
    if (readLock(path) === raw) unlinkSync(path);
    return true;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return true;
    if (code === 'EPERM' || code === 'EACCES') {
      throw new CliError(
        `${path}: held by a process that is gone, but this user may not remove the lock (${code}); remove it as its owner`,
      );
    }
    throw error;
  } finally {
    unlinkSync(guard);
  }
}

/** The kernel's boot id (Linux): tells two boots of one machine apart. Null elsewhere. */
function bootId(): string | null {
  return readProcText('/proc/sys/kernel/random/boot_id', 64)?.trim() || null;
}

/** The first `most` bytes of a /proc file as text (one read: the kernel gives such a file whole), or null. */
function readProcText(path: string, most: number): string | null {
  try {
    const fd = openSync(path, 'r');
    try {
      const bytes = Buffer.alloc(most);
      return bytes.toString('utf8', 0, readSync(fd, bytes, 0, most, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** This process's PID namespace (Linux: the `pid:[inode]` of /proc/self/ns/pid). Null elsewhere. */
function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

/** When process `pid` started, from /proc (Linux): tells a reused process id apart. Null elsewhere. */
function processStart(pid: number): string | null {
  const stat = readProcText(`/proc/${pid}/stat`, 4096);
  if (stat === null) return null;
  // Field 22 (starttime), counted after the command name's closing parenthesis (the name may hold spaces).
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

function describe(holder: Holder): string {
  if (holder.host !== SELF.host) return `process ${holder.pid} on ${holder.host}`;
  return holder.pidns !== null && holder.pidns !== SELF.pidns
    ? `process ${holder.pid} of another PID namespace`
    : `process ${holder.pid}`;
}
