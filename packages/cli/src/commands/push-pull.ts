import { CliError, EXIT } from '../errors.js';
import { readFilterBytes, writeFilterFile } from '../files.js';
import { decodeFilter } from '../filters.js';
import { type RedisTarget, withRedis } from '../redis-target.js';

/** `push FILE redis://host:port/NAME`: a filter file into Redis (refused when NAME exists unless --replace). */
export async function runPush(
  file: string,
  target: RedisTarget,
  options: { replace: boolean; shards: number | undefined; ttl: number | undefined },
): Promise<number> {
  const bytes = readFilterBytes(file);
  decodeFilter(bytes); // Checks the file (and its checksum) before anything is sent.
  return withRedis(target, async (client, Filter) => {
    if (options.replace) {
      const existing = await Filter.open(client, target.name).catch(() => undefined);
      await existing?.drop();
    }
    try {
      await Filter.import(client, target.name, bytes, {
        ...(options.shards === undefined ? {} : { shards: options.shards }),
        ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
      });
    } catch (error) {
      if (error instanceof Error && /exists; drop it first/.test(error.message)) {
        throw new CliError(
          `${target.url.href}: a filter named ${JSON.stringify(target.name)} exists (use --replace)`,
        );
      }
      throw error;
    }
    return EXIT.ok;
  });
}

/** `pull redis://host:port/NAME FILE`: a filter from Redis into a file, written atomically. */
export async function runPull(target: RedisTarget, file: string): Promise<number> {
  return withRedis(target, async (client, Filter) => {
    const filter = await Filter.open(client, target.name);
    writeFilterFile(file, await filter.toLocal());
    return EXIT.ok;
  });
}
