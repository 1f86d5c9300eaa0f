import type { RedisBloomFilter } from '@bloomkit/redis';
import { CliError } from './errors.js';

/** A filter in Redis, as the command line names it: `redis://[user:password@]host[:port]/NAME` (`rediss://`: TLS). */
export interface RedisTarget {
  readonly url: URL;
  /** The filter's name: the URL's path, decoded (not a database number). */
  readonly name: string;
  readonly cluster: boolean;
}

export function parseRedisTarget(text: string, cluster: boolean): RedisTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${text}: not a Redis URL (expected redis://host:port/NAME)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new CliError(`${text}: not a Redis URL (expected redis://host:port/NAME or rediss:// for TLS)`);
  }
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (name === '')
    throw new CliError(`${text}: the URL's path must name the filter, as in redis://host:6379/seen`);
  return { url, name, cluster };
}

/** The modules for Redis, loaded only by the commands that use them (a local command never pays for them). */
async function redisModules() {
  const [{ Redis, Cluster }, redis] = await Promise.all([import('ioredis'), import('@bloomkit/redis')]);
  return { Redis, Cluster, RedisBloomFilter: redis.RedisBloomFilter };
}

/**
 * Connects to the target and runs `use` with the client and the filter class; disconnects afterwards, whatever
 * happens. A connection that fails is reported once, not retried forever.
 */
export async function withRedis<T>(
  target: RedisTarget,
  use: (
    client: import('ioredis').Redis | import('ioredis').Cluster,
    Filter: typeof RedisBloomFilter,
  ) => Promise<T>,
): Promise<T> {
  const { Redis, Cluster, RedisBloomFilter } = await redisModules();
  const { url } = target;
  const options = {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: 2,
    retryStrategy: () => null,
  };
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 6379);
  const client = target.cluster
    ? new Cluster([{ host, port }], { redisOptions: options, clusterRetryStrategy: () => null })
    : new Redis({ host, port, ...options });
  let failure: Error | undefined;
  client.on('error', (error: Error) => {
    failure ??= error;
  });
  try {
    return await use(client, RedisBloomFilter);
  } catch (error) {
    if (failure !== undefined && !(error instanceof CliError)) {
      throw new CliError(`${url.protocol}//${url.host}: ${failure.message}`);
    }
    // What the server refused (NOPERM, OOM, WRONGTYPE, …) is the server's one-line answer, not a bug of ours.
    if (error instanceof Error && error.name === 'ReplyError') {
      throw new CliError(`${url.protocol}//${url.host}: ${error.message}`);
    }
    throw error;
  } finally {
    client.disconnect();
  }
}
