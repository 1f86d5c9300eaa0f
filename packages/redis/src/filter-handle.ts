import { InvalidArgumentError, type Key } from '@bloomkit/core';
import { checkInteger } from '@bloomkit/core/kit';
import { BitStore } from './bit-store.js';
import { chunksOf, type FileChunk, parseCursor } from './chunks.js';
import { ledgerOf, type RedisClient, runScript, script } from './client.js';
import { CounterStore } from './counter-store.js';
import { CuckooStore } from './cuckoo-store.js';
import { filterGone } from './errors.js';
import { FAMILIES, type StorageFamily } from './families/index.js';
import { type FilterKeys, filterKeys } from './keys.js';
import { redisKind } from './kinds.js';
import type { LocalFilter } from './local.js';
import { DROP_META } from './lua/drop-meta.js';
import { checkCount, type RedisFilterParams } from './params.js';
import { Counter, type Store } from './store.js';
import type { WindowClock } from './window-clock.js';

const DROP_META_SCRIPT = script(DROP_META);

/** What {@link FilterHandle.info} reports. */
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
 * A handle on one filter in Redis: what is done to it once it is open (adds, lookups, deletes, exceptions, count,
 * export, info, expiry, drop). {@link RedisBloomFilter} adds the ways to get one (create, open, import).
 */
export class FilterHandle {
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
  /** The filter's Redis keys (its meta hash, its generation's storage). */
  protected readonly keys: FilterKeys;
  /** The filter's storage family (families/), whose store holds it. */
  protected readonly family: StorageFamily;
  /** The store of the filter's family. */
  protected readonly store: Store;
  /** The filter's count in its meta hash. */
  protected readonly counter: Counter;

  protected constructor(
    protected readonly client: RedisClient,
    name: string,
    /** Everything the meta hash says about the filter, as read when this handle was made. */
    readonly params: RedisFilterParams,
    /** This filter's generation (see keys.ts): its storage keys, and how a handle knows its filter still exists. */
    protected readonly generation: number,
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
    this.counter = new Counter(client, this.keys.meta, generation, name);
    this.family = FAMILIES[redisKind(params.kind)!.storage];
    this.store = this.family.open(context, this.counter, clock);
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

  /**
   * {@link addMany} that adds only the keys that are absent: the same answers (true when a key was new), but a
   * cuckoo filter stores no second copy of a key it holds (RedisBloom's `CF.ADDNX`), so a stream's repeats cost no
   * slot (what `bloomkit dedup` uses). The other kinds keep no copies: for them it is {@link addMany}.
   */
  addNew(keys: readonly Key[]): Promise<boolean[]> {
    return this.store.addNew ? this.store.addNew(keys) : this.store.addMany(keys);
  }

  /** `has` for each key, grouped like {@link addMany}. */
  hasMany(keys: readonly Key[]): Promise<boolean[]> {
    return this.store.hasMany(keys);
  }

  /**
   * Counting and cuckoo filters: removes one occurrence of `key`, atomically, as CountingBloomFilter.delete and
   * CuckooFilter.delete (false, nothing changed, when it is not found).
   */
  async delete(key: Key): Promise<boolean> {
    return (await this.deleteMany([key]))[0]!;
  }

  /** Counting and cuckoo filters: {@link delete} for each key, in order, in one atomic script call. */
  deleteMany(keys: readonly Key[]): Promise<boolean[]> {
    if (!(this.store instanceof CounterStore) && !(this.store instanceof CuckooStore)) {
      return Promise.reject(
        new InvalidArgumentError(
          `RedisBloomFilter.delete: ${this.name} is a ${this.kind} filter; only counting and cuckoo filters delete`,
        ),
      );
    }
    return this.store.deleteMany(keys);
  }

  /**
   * Cuckoo filters: the copies of `key`'s fingerprint in its two buckets, as CuckooFilter.countOf (RedisBloom's
   * `CF.COUNT`): at least the times it was added and not deleted.
   */
  async countOf(key: Key): Promise<number> {
    return (await this.countMany([key]))[0]!;
  }

  /** Cuckoo filters: {@link countOf} for each key, in one read-only script call. */
  countMany(keys: readonly Key[]): Promise<number[]> {
    if (!(this.store instanceof CuckooStore)) {
      return Promise.reject(
        new InvalidArgumentError(
          `RedisBloomFilter.countOf: ${this.name} is a ${this.kind} filter; only cuckoo filters count copies`,
        ),
      );
    }
    return this.store.countMany(keys);
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
      filters: this.family.filters(keys),
      bytes: lengths.reduce((a, b) => a + b, 0),
      keys,
      ttl: ttl >= 0 ? ttl : null,
      exceptionCount: await this.exceptionCount(),
    };
  }

  /** Sets a time to live on every key of the filter (growth of a scalable filter copies it to new sub-filters). */
  async expire(seconds: number): Promise<void> {
    readTtl('RedisBloomFilter.expire', seconds);
    const data = await this.store.dataKeys();
    const keys = [this.keys.meta, ...data, ...this.exceptionSets(), ...this.ledgers(data)];
    await Promise.all(keys.map((key) => this.client.expire(key, seconds)));
  }

  /**
   * The ledgers of the calls applied once under replay (lua/ledger.lua) of each slot the filter's keys are in: they
   * expire by themselves within 10 minutes, and with the filter or before it.
   */
  private ledgers(data: readonly string[]): string[] {
    return [...new Set([this.keys.meta, ...data].map(ledgerOf))];
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
    const data = await this.store.dataKeys();
    const keys = [...data, ...this.exceptionSets(), ...this.ledgers(data)];
    await runScript(this.client, DROP_META_SCRIPT, [this.keys.meta], [this.generation]);
    await Promise.all(keys.map((key) => this.client.del(key)));
  }
}

/** `ttl` checked: undefined, or whole seconds in [1, 2^31 − 1]. */
export function readTtl(where: string, ttl: number | undefined): number | undefined {
  return ttl === undefined ? undefined : checkInteger(where, 'ttl', ttl, 1, 2 ** 31 - 1);
}
