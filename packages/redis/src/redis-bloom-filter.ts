import {
  type ByteSource,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
} from '@bloomkit/core';
import { readOptions } from '@bloomkit/core/internal';
import { checkInteger, keyList } from '@bloomkit/core/kit';
import { BitStore } from './bit-store.js';
import {
  chunksOf,
  dropStaging,
  type FileChunk,
  formatCursor,
  parseCursor,
  stageChunk,
  stagedProgress,
} from './chunks.js';
import { type RedisClient, runScript, script } from './client.js';
import { CounterStore } from './counter-store.js';
import { FilterNotFoundError, filterGone, RedisFilterError } from './errors.js';
import { decodeLocal, paramsOf, planParams, type RedisFilterOptions } from './filter-params.js';
import { type FunctionsStatus, functionsStatus, installFunctions, removeFunctions } from './functions.js';
import { checkName, filterKeys, metaKey } from './keys.js';
import { redisKind } from './kinds.js';
import type { LocalFilter } from './local.js';
import {
  checkCount,
  decodeGeneration,
  decodeParams,
  encodeParams,
  firstDifference,
  newGeneration,
  type RedisFilterParams,
} from './params.js';
import { ScalableStore } from './scalable-store.js';
import { CREATE, DROP_META } from './scripts.js';
import { Counter, type Store } from './store.js';
import { readWindowClock, SERVER_CLOCK, type WindowClock } from './window-clock.js';
import { WindowStore } from './window-store.js';

const CREATE_SCRIPT = script(CREATE);
const DROP_META_SCRIPT = script(DROP_META);

/** What {@link RedisBloomFilter.info} reports. */
export interface RedisFilterInfo extends RedisFilterParams {
  /** The filter's name, as given to `create` or `open`. */
  readonly name: string;
  /** Adds that returned true (net of deletes, for counting). */
  readonly count: number;
  /** Scalable: sub-filters now. */
  readonly filters: number;
  /** Bytes of storage in Redis (the meta hash aside). */
  readonly bytes: number;
  /** The Redis keys holding the storage. */
  readonly keys: readonly string[];
  /** Seconds to live, or null without a TTL. */
  readonly ttl: number | null;
  /** Exception keys listed (0 for a filter without exceptions). */
  readonly exceptionCount: number;
}

/**
 * A bloomkit filter kept in Redis or a Redis Cluster, shared by every process that opens it by name: the same
 * filter, bit for bit, as the local one built from the same keys with the same seed. Hashing and positions are
 * computed in the client with core's code; Redis stores exactly the payload bytes of docs/FORMAT.md and changes
 * them atomically (BITFIELD inside Lua scripts, one per batch and Redis key), so no server module is needed.
 *
 * Kinds: standard and partitioned in one string (up to 2^32 bits, Redis's 512 MB limit); counting with 4- or
 * 8-bit counters in one string; blocked sharded over many keys whose hash tags spread them over a cluster's slots
 * (a key touches one block, so one shard: every operation is one atomic command on one node); scalable in one slot,
 * growing atomically under racing writers.
 *
 * Failures: a rejected promise means the operation may or may not have been applied, but a key is only reported
 * as added when Redis said so. ioredis retries commands as its options say (`maxRetriesPerRequest`); a retried
 * test-and-add is safe: it sets the same bits again and reports the key as present, never as added twice. A
 * cluster node that is down fails the batches touching its shards with a RedisFilterError naming them; the other
 * shards keep working.
 */
export class RedisBloomFilter {
  /** The filter's name: its Redis keys are `bloomkit:{NAME}:…`. */
  readonly name: string;
  /** The kind's name in the table of `@bloomkit/filters`. */
  readonly kind: string;
  /** The hash seed, an unsigned 32-bit integer. */
  readonly seed: number;
  /** m (counters for counting; of the first sub-filter for scalable). */
  readonly bits: number;
  /** k (of the first sub-filter for scalable). */
  readonly hashes: number;
  /** Keys `create` sized it for (for scalable: the first sub-filter's); null when built from bits and hashes. */
  readonly capacity: number | null;
  /** The target rate `create` sized it for; null when built from bits and hashes. */
  readonly fpr: number | null;
  private readonly keys;
  private readonly store: Store;
  private readonly counter: Counter;

  private constructor(
    private readonly client: RedisClient,
    name: string,
    /** Everything the meta hash says about the filter, as read when this handle was made. */
    readonly params: RedisFilterParams,
    /** This filter's generation (see keys.ts): its storage keys, and how a handle knows its filter still exists. */
    private readonly generation: number,
    clock: WindowClock,
  ) {
    this.name = name;
    this.kind = params.kind;
    this.seed = params.seed;
    this.bits = params.bits;
    this.hashes = params.hashes;
    this.capacity = params.capacity;
    this.fpr = params.fpr;
    this.keys = filterKeys(name, generation);
    const context = { client, name, keys: this.keys, params, generation };
    this.counter = new Counter(client, this.keys.meta, generation);
    const { storage } = redisKind(params.kind)!;
    this.store =
      storage === 'counters'
        ? new CounterStore(context, this.counter)
        : storage === 'chain'
          ? new ScalableStore(context)
          : storage === 'ring'
            ? new WindowStore(context, clock)
            : new BitStore(context, this.counter);
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
      if (fields.state === 'ready') return new RedisBloomFilter(client, name, params, generation, clock);
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

  /** Test-and-add: true when `key` was new. Atomic: of N clients adding one new key at once, exactly one gets true. */
  async add(key: Key): Promise<boolean> {
    return (await this.store.addMany([key]))[0]!;
  }

  /** True when `key` may have been added (false positives at the filter's rate); false means certainly not. */
  async has(key: Key): Promise<boolean> {
    return (await this.store.hasMany([key]))[0]!;
  }

  /**
   * `add` for each key, in order (a repeat within the batch answers false): one script call per shard the batch
   * touches, all in flight at once, so a batch costs a few round trips, not one per key.
   */
  addMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.store.addMany(keys);
  }

  /** `has` for each key, grouped like {@link addMany}. */
  hasMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.store.hasMany(keys);
  }

  /** Counting filters: removes one occurrence of `key`, as CountingBloomFilter.delete, atomically. */
  async delete(key: Key): Promise<boolean> {
    return (await this.deleteMany([key]))[0]!;
  }

  /** Counting filters: {@link delete} for each key, in order, in one atomic script call. */
  deleteMany(keys: readonly Key[]): Promise<boolean[]> {
    if (!(this.store instanceof CounterStore)) {
      return Promise.reject(
        new InvalidArgumentError(
          `RedisBloomFilter.delete: ${this.name} is a ${this.kind} filter; only counting filters delete`,
        ),
      );
    }
    return this.store.deleteMany(keys);
  }

  /**
   * Filters with exceptions (`exceptions: true`): records that `key` is absent although the filter answers present
   * (a false positive confirmed elsewhere), as ExceptionFilter.addException, atomically with adds and lookups of it:
   * true when `has` answers false for it from now on; false when the filter answers absent already or the key is
   * listed already. An `add` of the key lifts its exception.
   */
  async addException(key: Key): Promise<boolean> {
    return (await this.addExceptions([key]))[0]!;
  }

  /** {@link addException} for each key, batched like {@link addMany}. */
  addExceptions(keys: readonly Key[]): Promise<boolean[]> {
    return this.exceptionStore('RedisBloomFilter.addExceptions').then((store) => store.addExceptions(keys));
  }

  /** Takes `key` off the exception list; true when it was on it. */
  async removeException(key: Key): Promise<boolean> {
    return (await this.removeExceptions([key]))[0]!;
  }

  /** {@link removeException} for each key. */
  removeExceptions(keys: readonly Key[]): Promise<boolean[]> {
    return this.exceptionStore('RedisBloomFilter.removeExceptions').then((store) =>
      store.removeExceptions(keys),
    );
  }

  /** The number of exception keys (0 for a filter without exceptions). */
  async exceptionCount(): Promise<number> {
    return this.store instanceof BitStore ? this.store.exceptionCount() : 0;
  }

  /** The store of a filter with exceptions, or an InvalidArgumentError (rejected) for one without. */
  private async exceptionStore(where: string): Promise<BitStore> {
    if (!this.params.exceptions || !(this.store instanceof BitStore)) {
      throw new InvalidArgumentError(
        `${where}: ${this.name} has no exception list; create it with { exceptions: true } (bit kinds)`,
      );
    }
    return this.store;
  }

  /** Adds that returned true so far (net of deletes, for counting). */
  async count(): Promise<number> {
    await this.counter.settled();
    const [generation, count] = (await this.client.hmget(this.keys.meta, 'generation', 'count')) as (
      | string
      | null
    )[];
    if (generation !== String(this.generation)) throw filterGone('RedisBloomFilter.count', this.name);
    return checkCount('RedisBloomFilter.count', this.name, 'count', count);
  }

  /**
   * The filter as a local object, read from Redis a few MB at a time: the same filter `deserialize` would give
   * for {@link export}'s bytes (an ExceptionFilter over it for a filter with exceptions). Not a snapshot across
   * keys: adds running meanwhile may or may not be in it.
   */
  async toLocal(): Promise<LocalFilter> {
    return this.store.toLocal(await this.count());
  }

  /** The bloomkit file (docs/FORMAT.md), byte for byte what the local filter built from the same keys serializes. */
  async export(): Promise<Uint8Array> {
    return (await this.toLocal()).serialize();
  }

  /** {@link export} as parts to write in order, for filters past one Uint8Array (4 GiB). */
  async exportParts(): Promise<Uint8Array[]> {
    return (await this.toLocal()).serializeParts();
  }

  /**
   * {@link export} in chunks of `chunkBytes` (default 4 MiB), each with a cursor, for a transfer that may stop and
   * resume (RedisBloom's `BF.SCANDUMP`): save the cursor of the last chunk you stored, and pass it as `after` to a
   * later call (from any process) to go on from there. The filter is read once per call (as `export` reads it);
   * if it changed since `after` was given, the call throws an IncompatibleFiltersError rather than mix two
   * versions. Feed the chunks to {@link RedisBloomFilter.importChunk}, or write them to a file in order.
   */
  async *exportChunks(
    options: { readonly after?: string | undefined; readonly chunkBytes?: number | undefined } = {},
  ): AsyncGenerator<FileChunk, void, undefined> {
    const where = 'RedisBloomFilter.exportChunks';
    if (options.after !== undefined) parseCursor(where, 'after', options.after);
    yield* chunksOf(where, await this.exportParts(), options);
  }

  /** Parameters, count, storage keys and size (each string's guard, and each shard's shape, included), TTL. */
  async info(): Promise<RedisFilterInfo> {
    const count = await this.count();
    const keys = await this.store.dataKeys();
    const lengths = await Promise.all(keys.map((key) => this.client.strlen(key)));
    const ttl = await this.client.ttl(this.keys.meta);
    return {
      name: this.name,
      ...this.params,
      count,
      filters: this.kind === 'scalable' ? keys.length : 1,
      bytes: lengths.reduce((a, b) => a + b, 0),
      keys,
      ttl: ttl >= 0 ? ttl : null,
      exceptionCount: await this.exceptionCount(),
    };
  }

  /** Sets a time to live on every key of the filter (growth of a scalable filter copies it to new sub-filters). */
  async expire(seconds: number): Promise<void> {
    readTtl('RedisBloomFilter.expire', seconds);
    const keys = [this.keys.meta, ...(await this.store.dataKeys()), ...this.exceptionSets()];
    await Promise.all(keys.map((key) => this.client.expire(key, seconds)));
  }

  /** The sets of exception keys (none without exceptions). */
  private exceptionSets(): string[] {
    return this.store instanceof BitStore ? this.store.exceptionSets() : [];
  }

  /**
   * Deletes the filter: its parameters (unless the name now holds another generation's filter), then its storage.
   * Every handle on it, this one included, then fails with FilterNotFoundError.
   */
  async drop(): Promise<void> {
    const keys = [...(await this.store.dataKeys()), ...this.exceptionSets()];
    await runScript(this.client, DROP_META_SCRIPT, [this.keys.meta], [this.generation]);
    await Promise.all(keys.map((key) => this.client.del(key)));
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

function readTtl(where: string, ttl: number | undefined): number | undefined {
  return ttl === undefined ? undefined : checkInteger(where, 'ttl', ttl, 1, 2 ** 31 - 1);
}
