import { type BloomFilter, type ByteSource, InvalidArgumentError } from '@bloomkit/core';
import { resolveSeed } from '@bloomkit/core/internal';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { kindOfBytes } from '@bloomkit/filters';
import { type BaseParams, FAMILIES } from './families/index.js';
import { type RedisKind, requireRedisKind } from './kinds.js';
import type { LocalFilter } from './local.js';
import type { RedisFilterParams } from './params.js';

export { DEFAULT_SHARD_BYTES } from './families/index.js';

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
  /** Cuckoo: slots a bucket, 2, 4 (default) or 8 (as `CuckooFilter.create`'s `bucketSize`). */
  readonly bucketSize?: 2 | 4 | 8;
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

/*
 * The parameters a filter is stored with, planned before anything is written: from `create`'s options (sized as
 * the local classes size them) or from a file being imported (its kind checked from the header first). Every
 * argument is checked here, with a typed error naming it, so a refused create or import writes nothing.
 */

/** The parameters every kind stores, set to what a kind without counters, shards or a chain has. */
function baseParams(kind: string, seed: number, exceptions: boolean): BaseParams {
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

/** The stored parameters for create's options, sized as the local classes size them (by the kind's family). */
export function planParams(where: string, o: RedisFilterOptions): RedisFilterParams {
  const { Class, storage } = requireRedisKind(where, o.kind);
  const family = FAMILIES[storage];
  const kind = Class.kind.name;
  const seed = resolveSeed(where, o.seed);
  if (o.exceptions !== undefined && typeof o.exceptions !== 'boolean') {
    throw new InvalidArgumentError(`${where}: exceptions must be true or false, got ${String(o.exceptions)}`);
  }
  const exceptions = o.exceptions ?? false;
  if (exceptions && !family.exceptions) {
    throw new InvalidArgumentError(
      `${where}: exceptions live beside bits: kind must be one of standard, partitioned, blocked (or another bit kind), not ${kind}`,
    );
  }
  if (o.bucketSize !== undefined && storage !== 'cuckoo') {
    throw new InvalidArgumentError(`${where}: bucketSize applies to a cuckoo filter, not ${kind}`);
  }
  if (o.duration !== undefined && !family.timed) {
    throw new InvalidArgumentError(`${where}: duration applies to a window, not ${kind}`);
  }
  return family.plan({ where, o, record: Class.kind, base: baseParams(kind, seed, exceptions) });
}

/**
 * A local filter of any kind Redis holds, from a file: its kind (from the header, O(1)) is checked first. A file
 * with exceptions (kind 6) is read whole, then its nested filter's kind is checked.
 */
export function decodeLocal(where: string, bytes: ByteSource): { local: LocalFilter; kind: RedisKind } {
  const { Class } = kindOfBytes(bytes);
  if (Class === (ExceptionFilter as unknown)) {
    const excepted = ExceptionFilter.deserialize(bytes, { maxBytes: Number.MAX_SAFE_INTEGER });
    const kind = requireRedisKind(where, kindOfBytes(excepted.filter.serializeParts()).Class.kind.name);
    if (!FAMILIES[kind.storage].exceptions) {
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

/** The stored parameters of an imported filter of a kind Redis holds (by the kind's family). */
export function paramsOf(
  where: string,
  given: BloomFilter,
  { Class, storage }: RedisKind,
  shards: number | undefined,
): RedisFilterParams {
  const exceptions = given instanceof ExceptionFilter;
  const local = exceptions ? (given as ExceptionFilter).filter : given;
  return FAMILIES[storage].paramsOf(
    where,
    local,
    baseParams(Class.kind.name, local.seed, exceptions),
    shards,
  );
}
