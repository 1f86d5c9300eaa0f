import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** An ioredis client: one server (`Redis`) or a cluster (`Redis.Cluster`). Its options are the caller's. */
export type RedisClient = Redis | Cluster;

/** A Lua script and its SHA-1, for EVALSHA. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Runs a script by its SHA-1 (EVALSHA), loading it with EVAL when the server does not have it yet (NOSCRIPT:
 * a fresh server, a restarted one, or a cluster node seeing it first). In a cluster the client routes the call by
 * its keys, which share one slot.
 */
export async function runScript(
  client: RedisClient,
  { source, sha }: Script,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
): Promise<unknown> {
  try {
    return await client.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await client.eval(source, keys.length, ...keys, ...args);
  }
}
