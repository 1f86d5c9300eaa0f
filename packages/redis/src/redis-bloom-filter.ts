import {
  BLOCK_BITS,
  type BloomFilter,
  type ByteSource,
  chooseShape,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
} from '@bloomkit/core';
import { readOptions, resolveSeed } from '@bloomkit/core/internal';
import { checkInteger, checkOneOf, checkOpenInterval, keyList } from '@bloomkit/core/kit';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { kindOfBytes } from '@bloomkit/filters';
import {
  checkGrowthFactor,
  DEFAULT_GROWTH,
  DEFAULT_TIGHTENING,
  type ScalableBloomFilter,
  subFilterShape,
} from '@bloomkit/scalable';
import { WindowBloomFilter } from '@bloomkit/window';
import { BitStore } from './bit-store.js';
import { chainShapes } from './chain-shapes.js';
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
import { type FunctionsStatus, functionsStatus, installFunctions, removeFunctions } from './functions.js';
import { checkName, filterKeys, metaKey } from './keys.js';
import { type RedisKind, redisKind, requireRedisKind } from './kinds.js';
import type { LocalFilter } from './local.js';
import {
  checkCount,
  decodeGeneration,
  decodeParams,
  encodeParams,
  firstDifference,
  MAX_SHARDS,
  MAX_STRING_BITS,
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

/** Default shard size of a blocked filter: 4 MiB of blocks per Redis key. */
export const DEFAULT_SHARD_BYTES: number = 4 * 1024 * 1024;

/** How to create a filter in Redis. */
export interface RedisFilterOptions {
  /** A kind's name from the table of `@bloomkit/filters` that Redis holds (`redisKindNames()`). */
  readonly kind: string;
  /** Keys the filter is sized for (for scalable: the first sub-filter's), with `fpr`. */
  readonly capacity?: number;
  /** Target false-positive rate, in (0, 1). */
  readonly fpr?: number;
  /** Or an explicit m and k (not for scalable). */
  readonly bits?: number;
  /** k, with `bits`. */
  readonly hashes?: number;
  /** Hash seed, or 'random' (recommended when untrusted input fills the filter). Default 0. */
  readonly seed?: number | 'random';
  /** Counting: counter width, 4 (default) or 8. */
  readonly counterBits?: 4 | 8;
  /** Blocked: number of Redis keys the blocks are spread over. Default: one per 4 MiB. */
  readonly shards?: number;
  /** Scalable: growth in [1.125, 4] (default 1.5) and tightening in (0, 1) (default 0.93). */
  readonly growth?: number;
  /** Scalable: tightening in (0, 1) (default 0.93). */
  readonly tightening?: number;
  /** Seconds until Redis deletes the filter (EXPIRE on every key); none by default. */
  readonly ttl?: number;
  /**
   * A window (`kind: 'window'`, sized by `capacity`, the window, and `fpr`): a time window of this many ms, as
   * `WindowBloomFilter.create`'s `duration`. Without it, a count window.
   */
  readonly duration?: number;
  /**
   * A time window's clock, in ms since the epoch. By default the Redis server's (`TIME`, read in each script), so
   * every writer of a shared window agrees on the time whatever its own clock says. Given, each reading is checked
   * against the server's: one more than `clockTolerance` ms off is refused with a ClockSkewError and nothing is
   * written. Also an option of {@link RedisBloomFilter.open}.
   */
  readonly clock?: () => number;
  /**
   * With `clock`: how far (ms, an integer in [0, 2^47], or Infinity to trust the clock) its readings may be from
   * the server's time. Default 1,000 ms.
   */
  readonly clockTolerance?: number;
  /**
   * Keep an exception list beside the bits (as ExceptionFilter of `@bloomkit/exceptions`): keys known to be false
   * positives, answered absent. For the bit kinds (standard, partitioned, blocked). Default false.
   */
  readonly exceptions?: boolean;
}

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

/** The parameters every kind stores, set to what a kind without counters, shards or a chain has. */
function baseParams(kind: string, seed: number, exceptions: boolean) {
  return {
    kind,
    seed,
    counterBits: 0,
    shards: 1,
    shardBlocks: 0,
    growth: 0,
    tightening: 0,
    exceptions,
    duration: 0,
  };
}

/** The stored parameters for create's options, sized as the local classes size them. */
function planParams(where: string, o: RedisFilterOptions): RedisFilterParams {
  const { Class, storage } = requireRedisKind(where, o.kind);
  const kind = Class.kind.name;
  const seed = resolveSeed(where, o.seed);
  if (o.exceptions !== undefined && typeof o.exceptions !== 'boolean') {
    throw new InvalidArgumentError(`${where}: exceptions must be true or false, got ${String(o.exceptions)}`);
  }
  const exceptions = o.exceptions ?? false;
  if (exceptions && storage !== 'bits' && storage !== 'shards') {
    throw new InvalidArgumentError(
      `${where}: exceptions live beside bits: kind must be one of standard, partitioned, blocked (or another bit kind), not ${kind}`,
    );
  }
  const base = baseParams(kind, seed, exceptions);
  if (o.duration !== undefined && storage !== 'ring') {
    throw new InvalidArgumentError(`${where}: duration applies to a window, not ${kind}`);
  }
  if (storage === 'ring') {
    if (o.bits !== undefined || o.hashes !== undefined) {
      throw new InvalidArgumentError(
        `${where}: a ${kind} filter is sized by capacity (the window) and fpr, not bits and hashes`,
      );
    }
    if (o.counterBits !== undefined || o.shards !== undefined) {
      throw new InvalidArgumentError(`${where}: counterBits and shards do not apply to a ${kind} filter`);
    }
    const capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
    const fpr = checkOpenInterval(where, 'fpr', o.fpr, 0, 1);
    const duration =
      o.duration === undefined ? 0 : checkInteger(where, 'duration', o.duration, 1, Number.MAX_SAFE_INTEGER);
    const shape = WindowBloomFilter.shapeOf(capacity, fpr, {
      duration: duration === 0 ? undefined : duration,
    });
    const bits = (shape.hashes + shape.ageSlices) * shape.sliceBits;
    checkStringBits(where, kind, storage, bits);
    return { ...base, bits, hashes: shape.hashes, capacity, fpr, duration };
  }
  if (storage === 'chain') {
    if (o.bits !== undefined || o.hashes !== undefined) {
      throw new InvalidArgumentError(
        `${where}: a ${kind} filter is sized by capacity and fpr, not bits and hashes`,
      );
    }
    const growth = checkGrowthFactor(where, o.growth ?? DEFAULT_GROWTH);
    const tightening = checkOpenInterval(where, 'tightening', o.tightening ?? DEFAULT_TIGHTENING, 0, 1);
    const capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
    const fpr = checkOpenInterval(where, 'fpr', o.fpr, 0, 1);
    const schedule = { initialCapacity: capacity, fpr, growth, tightening };
    const first = subFilterShape(schedule, 0);
    checkStringBits(where, kind, storage, first.bits);
    const shapes = chainShapes(schedule);
    return { ...base, bits: first.bits, hashes: first.hashes, capacity, fpr, growth, tightening, shapes };
  }
  const layout = Class.kind.layout;
  const counterBits =
    storage === 'counters' ? checkOneOf(where, 'counterBits', o.counterBits ?? 4, [4, 8] as const) : 0;
  if (storage !== 'counters' && o.counterBits !== undefined) {
    throw new InvalidArgumentError(
      `${where}: counterBits applies to a kind with counters (counting), not ${kind}`,
    );
  }
  let bits: number;
  let hashes: number;
  let capacity: number | null = null;
  let fpr: number | null = null;
  if (o.bits !== undefined || o.hashes !== undefined) {
    hashes = checkInteger(where, 'hashes', o.hashes, 1, 64);
    const unit = layout.bitsUnit(hashes);
    bits = Math.ceil(checkInteger(where, 'bits', o.bits, 1, layout.maxBits) / unit) * unit;
  } else {
    capacity = checkInteger(where, 'capacity', o.capacity, 1, Number.MAX_SAFE_INTEGER);
    const shape = chooseShape(capacity, o.fpr as number, layout, where);
    bits = shape.bits;
    hashes = shape.hashes;
    fpr = o.fpr as number;
  }
  if (storage === 'shards') {
    return { ...base, bits, hashes, capacity, fpr, ...shardLayout(where, kind, bits, o.shards) };
  }
  if (o.shards !== undefined)
    throw new InvalidArgumentError(`${where}: shards applies to a kind of the blocked layout, not ${kind}`);
  checkStringBits(where, kind, storage, bits * Math.max(1, counterBits));
  return { ...base, bits, hashes, capacity, fpr, counterBits };
}

/**
 * How a blocked filter of `bits` is cut into shards: at most `requested` shards (default: shards of 4 MiB − 64 B), each
 * of the same number of blocks but the last, that number chosen so a shard fills a jemalloc size class with room
 * for Redis's string header. jemalloc (Redis's allocator) rounds an allocation up to its next class, 25% apart
 * above 4 KiB: a shard of exactly 4 MiB plus its header would take 5 MiB, one of 4 MiB − 64 B takes 4 MiB.
 */
function shardLayout(
  where: string,
  kind: string,
  bits: number,
  requested: number | undefined,
): { shards: number; shardBlocks: number } {
  const blocks = bits / BLOCK_BITS;
  const needed =
    requested === undefined
      ? DEFAULT_SHARD_BYTES / 64 - 1
      : Math.ceil(blocks / checkInteger(where, 'shards', requested, 1, Math.min(blocks, MAX_SHARDS)));
  const shardBlocks = Math.min(blocks, sizeClass((needed + 1) * 64) / 64 - 1);
  checkStringBits(where, kind, 'shards', shardBlocks * BLOCK_BITS);
  return { shards: Math.ceil(blocks / shardBlocks), shardBlocks };
}

/** jemalloc's smallest size class ≥ `bytes` for bytes ≥ 4 KiB: four classes per power of two. */
function sizeClass(bytes: number): number {
  if (bytes <= 4096) return 4096;
  const step = 2 ** (Math.floor(Math.log2(bytes - 1)) - 2);
  return Math.ceil(bytes / step) * step;
}

/** One Redis string holds at most 2^32 bits. */
function checkStringBits(where: string, kind: string, storage: RedisKind['storage'], bits: number): void {
  if (bits > MAX_STRING_BITS) {
    throw new InvalidArgumentError(
      `${where}: a ${kind} filter of ${bits} bits does not fit one Redis string (at most 2^32 bits, Redis's 512 MB limit)${storage === 'shards' ? '; use more shards' : "; use kind 'blocked', which shards over many keys"}`,
    );
  }
}

/**
 * A local filter of any kind Redis holds, from a file: its kind (from the header, O(1)) is checked first. A file
 * with exceptions (kind 6) is read whole, then its nested filter's kind is checked.
 */
function decodeLocal(where: string, bytes: ByteSource): { local: LocalFilter; kind: RedisKind } {
  const { Class } = kindOfBytes(bytes);
  if (Class === (ExceptionFilter as unknown)) {
    const excepted = ExceptionFilter.deserialize(bytes, { maxBytes: Number.MAX_SAFE_INTEGER });
    const kind = requireRedisKind(where, kindOfBytes(excepted.filter.serializeParts()).Class.kind.name);
    if (kind.storage !== 'bits' && kind.storage !== 'shards') {
      throw new InvalidArgumentError(
        `${where}: exceptions live beside bits in Redis; this file's nested filter is a ${kind.Class.kind.name} filter`,
      );
    }
    return { local: excepted as unknown as LocalFilter, kind };
  }
  const kind = requireRedisKind(where, Class.kind.name);
  const local = kind.Class.deserialize(bytes, { maxBytes: Number.MAX_SAFE_INTEGER }) as LocalFilter;
  return { local, kind };
}

/** The stored parameters of an imported filter of a kind Redis holds. */
function paramsOf(
  where: string,
  given: BloomFilter,
  { Class, storage }: RedisKind,
  shards: number | undefined,
): RedisFilterParams {
  const kind = Class.kind.name;
  const exceptions = given instanceof ExceptionFilter;
  const local = exceptions ? (given as ExceptionFilter).filter : given;
  const base = baseParams(kind, local.seed, exceptions);
  if (storage === 'ring') {
    const window = local as WindowBloomFilter;
    return {
      ...base,
      bits: window.bits,
      hashes: window.hashes,
      capacity: window.window,
      fpr: window.fpr,
      duration: window.duration ?? 0,
    };
  }
  if (storage === 'chain') {
    const chain = local as ScalableBloomFilter;
    const subs = chain.subFilters();
    for (const sub of subs) checkStringBits(where, kind, storage, sub.bits);
    const shapes = chainShapes(chain, subs);
    return {
      ...base,
      bits: subs[0]!.bits,
      hashes: subs[0]!.hashes,
      capacity: chain.initialCapacity,
      fpr: chain.fpr,
      growth: chain.growth,
      tightening: chain.tightening,
      shapes,
    };
  }
  const sized = {
    bits: local.bits,
    hashes: local.hashes,
    capacity: local.capacity ?? null,
    fpr: local.fpr ?? null,
  };
  if (storage === 'counters') {
    const counterBits = (local as { counterBits?: number }).counterBits ?? 0;
    if (counterBits !== 4 && counterBits !== 8) {
      throw new InvalidArgumentError(
        `${where}: ${counterBits}-bit counters are not supported in Redis (its BITFIELD integers are big-endian); use 4 or 8`,
      );
    }
    checkStringBits(where, kind, storage, local.bits * counterBits);
    return { ...base, ...sized, counterBits };
  }
  if (storage === 'shards') return { ...base, ...sized, ...shardLayout(where, kind, local.bits, shards) };
  checkStringBits(where, kind, storage, local.bits);
  return { ...base, ...sized };
}
