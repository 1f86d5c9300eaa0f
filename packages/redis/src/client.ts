import { createHash, randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** An ioredis client: one server (`Redis`) or a cluster (`Redis.Cluster`). Its options are the caller's. */
export type RedisClient = Redis | Cluster;

/**
 * A Lua script and its SHA-1, for EVALSHA. `once`: the script is a write that runs once under replay (its entry is
 * `runOnce`, lua/door-eval.lua): every call of it carries a fresh id and its slot's ledger ({@link onceArguments}).
 */
export interface Script {
  readonly source: string;
  readonly sha: string;
  readonly once: boolean;
}

export function script(source: string): Script {
  const once = source.includes('return runOnce(function()');
  return { source, sha: createHash('sha1').update(source).digest('hex'), once };
}

/**
 * The ledger key and the id a call of a `once` script adds after its keys and its arguments (lua/ledger.lua): the
 * ledger of the slot of `keys[0]` (`bloomkit:{TAG}:calls`, TAG the hash tag of the filter's keys: its name, or
 * NAME/i for a blocked filter's shard i), and 16 random characters. A client that resends the call (ioredis does when
 * a connection drops before the reply came) sends the same id, so Redis applies it once and answers it the same.
 */
export function onceArguments(keys: readonly string[]): { ledger: string; id: string } {
  return { ledger: ledgerOf(keys[0] ?? ''), id: randomBytes(12).toString('base64url') };
}

/** The ledger of the slot of a filter's key (`bloomkit:{TAG}:…` → `bloomkit:{TAG}:calls`; lua/ledger.lua). */
export function ledgerOf(key: string): string {
  const tag = /\{([^}]*)\}/.exec(key);
  if (tag === null) throw new Error(`a filter's key without a hash tag: ${key}`);
  return `bloomkit:{${tag[1]}}:calls`;
}

/**
 * Runs a script by its SHA-1 (EVALSHA), loading it with EVAL when the server does not have it yet (NOSCRIPT:
 * a fresh server, a restarted one, or a cluster node seeing it first). In a cluster the client routes the call by
 * its keys, which share one slot. A `once` script gets its ledger key and a fresh id ({@link onceArguments}).
 */
export async function runScript(
  client: RedisClient,
  { source, sha, once }: Script,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
): Promise<unknown> {
  let allKeys = keys;
  let allArgs = args;
  if (once) {
    const { ledger, id } = onceArguments(keys);
    allKeys = [...keys, ledger];
    allArgs = [...args, id];
  }
  try {
    return await client.evalsha(sha, allKeys.length, ...allKeys, ...allArgs);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await client.eval(source, allKeys.length, ...allKeys, ...allArgs);
  }
}
