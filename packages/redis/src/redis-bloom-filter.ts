import {
  type ByteSource,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
} from '@bloomkit/core';
import { readOptions } from '@bloomkit/core/internal';
import { keyList } from '@bloomkit/core/kit';
import { dropStaging, formatCursor, parseCursor, stageChunk, stagedProgress } from './chunks.js';
import { type RedisClient, runScript, script } from './client.js';
import { decodeParams } from './decode-params.js';
import { FilterNotFoundError, RedisFilterError } from './errors.js';
import { warnOfEviction } from './eviction.js';
import { FilterHandle, readTtl } from './filter-handle.js';
import { decodeLocal, paramsOf, planParams, type RedisFilterOptions } from './filter-params.js';
import { type FunctionsStatus, functionsStatus, installFunctions, removeFunctions } from './functions.js';
import { checkName, filterKeys, metaKey } from './keys.js';
import { CREATE } from './lua/create.js';
import {
  decodeGeneration,
  encodeParams,
  firstDifference,
  newGeneration,
  type RedisFilterParams,
} from './params.js';
import { readWindowClock, SERVER_CLOCK, type WindowClock } from './window-clock.js';

const CREATE_SCRIPT = script(CREATE);

/**
 * A bloomkit filter kept in Redis or a Redis Cluster, shared by every process that opens it by name: the same
 * filter, bit for bit, as the local one built from the same keys with the same seed. Hashing and positions are
 * computed in the client with core's code; Redis stores exactly the payload bytes of docs/FORMAT.md and changes
 * them atomically (BITFIELD inside Lua scripts, one per batch and Redis key), so no server module is needed.
 *
 * Kinds: which ones Redis holds, and how, is each kind's storage family (kinds.ts, read from the table of
 * `@bloomkit/filters`; filter-handle.ts opens the store of each). A string holds up to 2^32 bits (Redis's 512 MB
 * limit); the blocked layout is sharded over keys whose hash tags spread them over a cluster's slots (a key touches
 * one block, so one shard: every operation is one atomic command on one node).
 *
 * Failures: a rejected promise means the operation may or may not have been applied, but a key is only reported
 * as added when Redis said so. ioredis retries commands as its options say (`maxRetriesPerRequest`); a retried
 * test-and-add is safe: it sets the same bits again and reports the key as present, never as added twice. A
 * cluster node that is down fails the batches touching its shards with a RedisFilterError naming them; the other
 * shards keep working.
 */
export class RedisBloomFilter extends FilterHandle {
  private constructor(
    client: RedisClient,
    name: string,
    params: RedisFilterParams,
    generation: number,
    clock: WindowClock,
  ) {
    super(client, name, params, generation, clock);
  }

  /**
   * Creates the filter `name`, or opens it when it exists with the same parameters. An existing filter with other
   * parameters is an IncompatibleFiltersError naming the first difference: never a silent overwrite. The storage
   * is allocated (zeroed) now, so a server without the memory fails here, not at the first add.
   */
  static async create(
    client: RedisClient,
    name: string,
    options: RedisFilterOptions,
  ): Promise<RedisBloomFilter> {
    const where = 'RedisBloomFilter.create';
    checkName(where, name);
    const params = planParams(where, readOptions(where, options, 'options'));
    const ttl = readTtl(where, options.ttl);
    const generation = newGeneration();
    const keys = filterKeys(name, generation);
    const existing = await claim(client, keys.meta, params, generation);
    if (existing !== undefined) {
      const stored = decodeParams(where, name, existing);
      const difference = firstDifference(stored, {
        ...params,
        seed: options.seed === 'random' ? stored.seed : params.seed,
      });
      if (difference !== undefined) {
        throw new IncompatibleFiltersError(
          `${where}: a filter named ${JSON.stringify(name)} exists with other parameters (${difference})`,
        );
      }
      return RedisBloomFilter.open(client, name, {
        clock: options.clock,
        clockTolerance: options.clockTolerance,
      });
    }
    const filter = new RedisBloomFilter(client, name, params, generation, readWindowClock(where, options));
    try {
      await filter.store.allocate();
      await client.hset(keys.meta, 'state', 'ready');
    } catch (error) {
      await filter.drop().catch(() => undefined);
      throw new RedisFilterError(
        `${where}: allocating ${name} failed, and what was allocated is deleted: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    if (ttl !== undefined) await filter.expire(ttl);
    await warnOfEviction(client, where, name, async () => ttl !== undefined);
    return filter;
  }

  /**
   * Adds `keys` to the filter `name`, creating it from `options` first when it does not exist (RedisBloom's
   * BF.INSERT): `create` (which opens a filter of that name with the same parameters, and refuses one with other
   * parameters with an IncompatibleFiltersError, adding nothing) then `addMany`. With `noCreate: true` it only opens:
   * a missing filter is a FilterNotFoundError and nothing is created; the sizing options are then not used. Answers
   * as `addMany`: true for each key that was new. For more than one batch, keep the handle of `create` or `open`.
   */
  static async insert(
    client: RedisClient,
    name: string,
    keys: readonly Key[],
    options: RedisFilterOptions & { readonly noCreate?: boolean },
  ): Promise<boolean[]> {
    const where = 'RedisBloomFilter.insert';
    const list = keyList(where, keys);
    const { noCreate, ...rest } = readOptions(where, options, 'options');
    if (noCreate !== undefined && typeof noCreate !== 'boolean') {
      throw new InvalidArgumentError(
        `${where}: noCreate must be true or false, got ${typeof noCreate} ${String(noCreate)}`,
      );
    }
    const filter =
      noCreate === true
        ? await RedisBloomFilter.open(client, name, {
            clock: rest.clock,
            clockTolerance: rest.clockTolerance,
          })
        : await RedisBloomFilter.create(client, name, rest);
    return filter.addMany(list);
  }

  /**
   * Loads the functions library (functions/bloomkit.lua, see functions.ts) on the server, or on every primary of a
   * cluster, so clients in any language use these filters through FCALL; never replaces a newer version.
   */
  static installFunctions(client: RedisClient): Promise<FunctionsStatus[]> {
    return installFunctions(client);
  }

  /** Which version of the functions library the server (each primary of a cluster) holds; null where none. */
  static functionsStatus(client: RedisClient): Promise<FunctionsStatus[]> {
    return functionsStatus(client);
  }

  /** Deletes the functions library from the server (each primary of a cluster). The filters stay. */
  static removeFunctions(client: RedisClient): Promise<FunctionsStatus[]> {
    return removeFunctions(client);
  }

  /** Opens the filter `name` that some process created; waits (up to 10 s) while its creator allocates it. */
  static async open(
    client: RedisClient,
    name: string,
    options: {
      readonly clock?: (() => number) | undefined;
      readonly clockTolerance?: number | undefined;
    } = {},
  ): Promise<RedisBloomFilter> {
    const where = 'RedisBloomFilter.open';
    checkName(where, name);
    const clock = readWindowClock(where, readOptions(where, options, 'options'));
    const meta = metaKey(name);
    for (let waited = 0; ; waited += 50) {
      const fields = (await client.hgetall(meta)) as Record<string, string>;
      if (Object.keys(fields).length === 0) {
        throw new FilterNotFoundError(`${where}: no filter named ${JSON.stringify(name)} (no key ${meta})`);
      }
      const params = decodeParams(where, name, fields);
      const generation = decodeGeneration(where, name, fields);
      if (fields.state === 'ready') {
        await warnOfEviction(client, where, name, async () => (await client.pttl(meta)) > 0);
        return new RedisBloomFilter(client, name, params, generation, clock);
      }
      if (waited >= 10_000) throw new RedisFilterError(`${where}: ${name} is still being created after 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Creates the filter `name` from a bloomkit file (docs/FORMAT.md; bytes or parts), written to Redis a few MB
   * at a time. Refuses a name that exists, and a file whose kind or counters Redis cannot hold.
   */
  static async import(
    client: RedisClient,
    name: string,
    bytes: ByteSource,
    options: { readonly shards?: number; readonly ttl?: number } = {},
  ): Promise<RedisBloomFilter> {
    const where = 'RedisBloomFilter.import';
    checkName(where, name);
    const { local, kind } = decodeLocal(where, bytes);
    const params = paramsOf(where, local, kind, options.shards);
    const generation = newGeneration();
    const keys = filterKeys(name, generation);
    if ((await claim(client, keys.meta, params, generation)) !== undefined) {
      throw new IncompatibleFiltersError(
        `${where}: a filter named ${JSON.stringify(name)} exists; drop it first`,
      );
    }
    const filter = new RedisBloomFilter(client, name, params, generation, SERVER_CLOCK);
    try {
      await filter.store.write(local);
    } catch (error) {
      await filter.drop();
      throw error;
    }
    await client.hset(keys.meta, 'count', local.count, 'state', 'ready');
    const ttl = readTtl(where, options.ttl);
    if (ttl !== undefined) await filter.expire(ttl);
    return filter;
  }

  /**
   * Stages one chunk of {@link exportChunks} for the filter `name` (RedisBloom's `BF.LOADCHUNK`): send the chunks in
   * order, from any process; a chunk sent twice is ignored, a chunk past a gap is refused (InvalidArgumentError).
   * Resolves to the filter once the last chunk is in, the assembled file matches the cursors' CRC-32C and
   * {@link import} has created it (with `options`); to undefined before. A corrupt chunk is found at the end: a
   * ChecksumMismatchError, and the staged bytes are discarded. A name that exists is an IncompatibleFiltersError.
   * Where an interrupted import stands: {@link importProgress}. The staged bytes live in Redis beside the filter's
   * slot until the end (the file once more, briefly, while it is imported), and an import without a chunk for a
   * day expires.
   */
  static async importChunk(
    client: RedisClient,
    name: string,
    cursor: string,
    bytes: Uint8Array,
    options: { readonly shards?: number; readonly ttl?: number } = {},
  ): Promise<RedisBloomFilter | undefined> {
    const where = 'RedisBloomFilter.importChunk';
    checkName(where, name);
    const chunk = parseCursor(where, 'cursor', cursor);
    if (!(bytes instanceof Uint8Array)) {
      throw new InvalidArgumentError(`${where}: bytes must be a Uint8Array, got ${typeof bytes}`);
    }
    if ((await client.exists(metaKey(name))) === 1) {
      throw new IncompatibleFiltersError(
        `${where}: a filter named ${JSON.stringify(name)} exists; drop it first`,
      );
    }
    const file = await stageChunk(where, client, name, chunk, bytes);
    if (file === undefined) return undefined;
    let filter: RedisBloomFilter;
    try {
      filter = await RedisBloomFilter.import(client, name, file, options);
    } catch (error) {
      // Bytes that are no valid file stay invalid: discard them. Anything else (the connection) may be retried.
      if (error instanceof FormatError || error instanceof InvalidArgumentError)
        await dropStaging(client, name, { ...chunk, end: chunk.length });
      throw error;
    }
    await dropStaging(client, name, { ...chunk, end: chunk.length });
    return filter;
  }

  /**
   * The cursor of the bytes an unfinished {@link importChunk} into `name` holds so far, or undefined when none is
   * under way: pass it as `after` to {@link exportChunks} to resume a transfer that stopped.
   */
  static async importProgress(client: RedisClient, name: string): Promise<string | undefined> {
    checkName('RedisBloomFilter.importProgress', name);
    const staged = await stagedProgress(client, name);
    return staged === undefined ? undefined : formatCursor(staged);
  }
}

/**
 * Writes a new filter's meta hash (state `creating`) unless the name is taken, atomically; returns the existing
 * hash's fields when it is, else undefined.
 */
async function claim(
  client: RedisClient,
  meta: string,
  params: RedisFilterParams,
  generation: number,
): Promise<Record<string, string> | undefined> {
  const existing = await runScript(
    client,
    CREATE_SCRIPT,
    [meta],
    [...encodeParams(params), 'generation', String(generation), 'count', '0', 'state', 'creating'],
  );
  return Array.isArray(existing) ? pairs(existing as string[]) : undefined;
}

/** HGETALL's flat reply as a record. */
function pairs(flat: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}
