import type { Key } from '@bloomkit/core';
import { type RedisClient, runScript, script } from './client.js';
import { scriptError } from './errors.js';
import type { FilterKeys } from './keys.js';
import type { LocalFilter } from './local.js';
import { COUNT_ADD } from './lua/count-add.js';
import type { RedisFilterParams } from './params.js';

/** How one kind keeps its storage in Redis; the facade (RedisBloomFilter) holds one. */
export interface Store {
  /** The Redis keys of the storage (for drop, expire and info); the meta hash is not among them. */
  dataKeys(): Promise<string[]>;
  /** Zeroed storage for a new filter. */
  allocate(): Promise<void>;
  addMany(keys: readonly Key[]): Promise<boolean[]>;
  /** `addMany` of the absent keys only, for a store that keeps a copy per add (cuckoo); else `addMany` serves. */
  addNew?(keys: readonly Key[]): Promise<boolean[]>;
  hasMany(keys: readonly Key[]): Promise<boolean[]>;
  /** The filter as a local object (its storage read with GETRANGE), count and sizing included. */
  toLocal(count: number): Promise<LocalFilter>;
  /** Writes a local filter's storage (import). */
  write(filter: LocalFilter): Promise<void>;
}

/** What every store is built from. */
export interface StoreContext {
  readonly client: RedisClient;
  readonly name: string;
  readonly keys: FilterKeys;
  readonly params: RedisFilterParams;
  /** The filter's generation (see keys.ts and guard.ts). */
  readonly generation: number;
}

/** lua/eval/count-add.lua: `count` raised only while the meta hash holds the handle's generation. */
const COUNT = script(COUNT_ADD);

/**
 * The meta hash's `count`. An add resolves only once its increment is applied (NOSCRIPT's fallback included), so a
 * handle that adds and then quits or disconnects never leaves the count short, and an add whose meta hash is gone
 * (evicted, dropped, expired) rejects with a FilterNotFoundError instead of answering "new" into orphaned storage.
 * {@link settled} waits for increments of adds that failed part-way (count, export and info call it).
 */
export class Counter {
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: RedisClient,
    private readonly meta: string,
    private readonly generation: number,
    private readonly name: string,
  ) {}

  /** Adds `n` to the count; resolves once Redis has applied it. */
  async add(where: string, n: number): Promise<void> {
    if (n <= 0) return;
    const increment = runScript(this.client, COUNT, [this.meta], [this.generation, n]).catch(
      (error: unknown) => {
        throw scriptError(where, this.name, error);
      },
    );
    this.pending = Promise.all([this.pending, increment.catch(() => undefined)]);
    await increment;
  }

  async settled(): Promise<void> {
    await this.pending;
  }
}
