import { BloomError } from '@bloomkit/core';

/**
 * A failure the user must fix, reported as one line on stderr (`bloomkit: FILE: problem`) with exit status 2,
 * never a stack trace.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/**
 * Exit statuses: as grep has them (0 yes, 1 no, 2 error), 3 when a fixed-size filter passed its capacity (its
 * rate is no longer the one promised), and 128 + N after a stop signal N (see interrupts.ts).
 */
export const EXIT = { ok: 0, absent: 1, error: 2, overCapacity: 3 } as const;

/**
 * The one line to print for an error: ours as they are, the library's typed errors and Node's file errors
 * (ENOENT, EACCES, EISDIR, …) with the file they concern. Anything else is a bug and keeps its stack.
 */
export function describeError(error: unknown, file?: string): string {
  const prefix = file === undefined ? '' : `${file}: `;
  if (error instanceof CliError) return error.message;
  if (error instanceof BloomError) return `${prefix}${stripWhere(error.message)}`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && error instanceof Error) {
    const path = (error as { path?: unknown }).path;
    const reason = SYSTEM_REASONS[code] ?? error.message;
    return `${typeof path === 'string' ? `${path}: ` : prefix}${reason}`;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** The library's messages start with `Class.method: `; a CLI user did not call a method. */
function stripWhere(message: string): string {
  return message.replace(/^[A-Za-z]+(\.[A-Za-z]+)?: /, '');
}

const SYSTEM_REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a path component is not a directory',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EPIPE: 'broken pipe',
};
