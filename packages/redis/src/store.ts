import type { Key } from '@bloomkit/core';
import { type RedisClient, runScript, script } from './client.js';
import { GONE_REPLY, scriptError } from './errors.js';
import type { FilterKeys } from './keys.js';
import type { LocalFilter } from './local.js';
import type { RedisFilterParams } from './params.js';

/** How one kind keeps its storage in Redis; the facade (RedisBloomFilter) holds one. */
export interface Store {
  /** The Redis keys of the storage (for drop, expire and info); the meta hash is not among them. */
  dataKeys(): Promise<string[]>;
  /** Zeroed storage for a new filter. */
  allocate(): Promise<void>;
  addMany(keys: readonly Key[]): Promise<boolean[]>;
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

/**
 * HINCRBY of `count` by ARGV[2] only while KEYS[1] holds the generation ARGV[1]: never recreates a gone hash, and
 * says so (GONE_REPLY) when the meta hash is gone or is another filter's, so an add into storage whose meta was
 * evicted or dropped is an error, never an acknowledgement.
 */
const COUNT = script(`
local state = redis.call('HMGET', KEYS[1], 'generation', 'count')
if state[1] ~= ARGV[1] then return redis.error_reply('${GONE_REPLY} the filter no longer exists') end
if state[2] and not string.match(state[2], '^%d+$') then return redis.error_reply('BLOOMKIT_BADMETA count') end
redis.call('HINCRBY', KEYS[1], 'count', ARGV[2])
return 0
`);

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
