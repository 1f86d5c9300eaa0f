import type { Key } from '@bloomkit/core';
import { type RedisClient, runScript, script } from './client.js';
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

/** HINCRBY of `count` by ARGV[2] only while KEYS[1] holds the generation ARGV[1]: never recreates a gone hash. */
const COUNT = script(`
if redis.call('HGET', KEYS[1], 'generation') == ARGV[1] then redis.call('HINCRBY', KEYS[1], 'count', ARGV[2]) end
return 0
`);

/**
 * The meta hash's `count`, increased without making the caller wait: an add resolves once its bits are set, and
 * the HINCRBY follows. Redis runs a connection's commands in order, so this client's next reads see it;
 * {@link settled} waits for the increments in flight (count, export and info call it). An increment lost with a
 * connection leaves `count` low, never the bits: `count` is bookkeeping, the bits are the filter. The increment is
 * a script that changes the hash only while it holds this filter's generation, so a filter that expired or was
 * dropped is never brought back as a hash holding only `count`.
 */
export class Counter {
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: RedisClient,
    private readonly meta: string,
    private readonly generation: number,
  ) {}

  add(n: number): void {
    if (n <= 0) return;
    const increment = runScript(this.client, COUNT, [this.meta], [this.generation, n]).catch(() => undefined);
    this.pending = Promise.all([this.pending, increment]);
  }

  async settled(): Promise<void> {
    await this.pending;
  }
}
