import { CliError, EXIT } from '../errors.js';
import { inFile, isStdout, readFilterBytes, writeFilterFile, writeFilterToStdout } from '../files.js';
import { decodeFilter } from '../filters.js';
import type { Interrupts } from '../interrupts.js';
import { type WriterOptions, withLockedFile } from '../locked-file.js';
import { type RedisTarget, withRedis } from '../redis-target.js';

/** `push FILE redis://host:port/NAME`: a filter file into Redis (refused when NAME exists unless --replace). */
export async function runPush(
  file: string,
  target: RedisTarget,
  options: { replace: boolean; shards: number | undefined; ttl: number | undefined },
  interrupts: Interrupts,
): Promise<number> {
  const { header, bytes } = await readFilterBytes(file, interrupts);
  try {
    decodeFilter(header, bytes); // Checks the file (and its checksum) before anything is sent.
  } catch (error) {
    throw inFile(file, error);
  }
  return withRedis(target, `pushing ${file} to ${target.name}`, interrupts, async (client, Filter) => {
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

/**
 * `pull redis://host:port/NAME FILE`: a filter from Redis into a file, written atomically under its lock, or to
 * stdout (`-`).
 */
export async function runPull(target: RedisTarget, file: string, writer: WriterOptions): Promise<number> {
  return withRedis(target, `pulling ${target.name}`, writer.interrupts, async (client, Filter) => {
    const filter = await Filter.open(client, target.name);
    const local = await filter.toLocal();
    if (isStdout(file)) {
      writeFilterToStdout(local);
      return EXIT.ok;
    }
    return withLockedFile(file, writer, (path) => {
      writeFilterFile(path, local, file);
      return EXIT.ok;
    });
  });
}
