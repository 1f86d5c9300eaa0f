import { BloomError } from '@bloomkit/core';

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
