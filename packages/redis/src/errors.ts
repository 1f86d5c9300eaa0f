import { BloomError, FormatError } from '@bloomkit/core';

/**
 * A Redis filter operation that failed in Redis: a lost connection, a node that is down, a reply that is not what
 * bloomkit wrote. `cause` is the client's error. When it rejects an add, the keys it concerns may or may not have
 * been written, but none was reported as added.
 */
export class RedisFilterError extends BloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    this.name = 'RedisFilterError';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * The filter a handle was opened on is gone: its TTL expired, or a client dropped it (and maybe created another
 * filter under the same name since). Every operation of the handle fails with it from then on; no add was
 * applied or reported as added. Open or create the name again for a new handle.
 */
export class FilterNotFoundError extends RedisFilterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FilterNotFoundError';
  }
}

/** The marker a script's error reply starts with when the filter it was called for is gone. */
export const GONE_REPLY = 'BLOOMKIT_GONE';

/** The error for a handle whose filter is gone. */
export function filterGone(where: string, name: string, cause?: unknown): FilterNotFoundError {
  return new FilterNotFoundError(
    `${where}: the filter ${JSON.stringify(name)} no longer exists (it expired, was dropped, or its storage was deleted); create it again, after drop() when its name still opens (a meta hash whose storage is gone opens, and fails so)`,
    cause === undefined ? undefined : { cause },
  );
}

/** True when `error` is a script's reply saying the filter is gone. */
export function isGoneReply(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(GONE_REPLY);
}

/**
 * A script's refusal of a meta field (`BLOOMKIT_BADMETA field`) as the FormatError that names it and its hash; any
 * other error as it is. A script checks its fields before it writes, so nothing was changed.
 */
export function scriptError(where: string, name: string, error: unknown): unknown {
  if (isGoneReply(error)) return filterGone(where, name, error);
  if (error instanceof Error && error.message.startsWith('BLOOMKIT_BADMETA')) {
    const field = error.message.split(' ')[1];
    return new FormatError(
      `${where}: meta field ${field} of bloomkit:{${name}}:meta is not valid; nothing was written`,
    );
  }
  if (error instanceof Error && /^(ERR )?WRONGTYPE /.test(error.message)) {
    return new FormatError(
      `${where}: a key of the filter ${JSON.stringify(name)} holds a Redis value of another type (another client wrote it); nothing was written: drop() the filter and create it again`,
    );
  }
  return error;
}
