import {
  BLOCK_BITS,
  type BloomFilter,
  type ByteSource,
  chooseShape,
  InvalidArgumentError,
  type Layout,
} from '@bloomkit/core';
import { resolveSeed } from '@bloomkit/core/internal';
import { checkInteger, checkOneOf, checkOpenInterval } from '@bloomkit/core/kit';
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
import { chainShapes } from './chain-shapes.js';
import { GUARD_BYTES } from './guard.js';
import { type RedisKind, type RedisStorage, requireRedisKind } from './kinds.js';
import type { LocalFilter } from './local.js';
import { MAX_SHARDS, MAX_STRING_BITS, type RedisFilterParams } from './params.js';

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

/** The stored parameters for create's options, sized as the local classes size them. */
export function planParams(where: string, o: RedisFilterOptions): RedisFilterParams {
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
  if (o.duration !== undefined && storage !== 'ring') {
    throw new InvalidArgumentError(`${where}: duration applies to a window, not ${kind}`);
  }
  const plan = { where, o, kind, storage, base: baseParams(kind, seed, exceptions) };
  if (storage === 'ring') return planRing(plan);
  if (storage === 'chain') return planChain(plan);
  return planSingle(plan, Class.kind.layout);
}

/** What planParams hands the plan of a storage family: the options, the kind, and the fields every kind has. */
interface Plan {
  readonly where: string;
  readonly o: RedisFilterOptions;
  readonly kind: string;
  readonly storage: RedisStorage;
  readonly base: BaseParams;
}

/** A plan's fields before its family sizes it. */
type BaseParams = Omit<RedisFilterParams, 'bits' | 'hashes' | 'capacity' | 'fpr'>;

/** A window's ring, sized by its window (capacity), fpr and duration as WindowBloomFilter sizes it. */
function planRing({ where, o, kind, storage, base }: Plan): RedisFilterParams {
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

/** A scalable chain: its schedule, and the shape of every sub-filter it may hold. */
function planChain({ where, o, kind, storage, base }: Plan): RedisFilterParams {
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

/** A single filter (bits in one string or in shards, or counters): m and k given, or sized by its layout. */
function planSingle({ where, o, kind, storage, base }: Plan, layout: Layout): RedisFilterParams {
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
  // Bits and counters are followed in their string by the 4-byte guard (guard.ts): 32 bits fewer for the payload.
  const guarded = storage === 'bits' || storage === 'counters';
  const most = guarded ? MAX_STRING_BITS - 8 * GUARD_BYTES : MAX_STRING_BITS;
  if (bits > most) {
    throw new InvalidArgumentError(
      `${where}: a ${kind} filter of ${bits} bits does not fit one Redis string (at most ${guarded ? "2^32 − 32 bits: 512 MB, Redis's limit, less the 4-byte guard" : "2^32 bits, Redis's 512 MB limit"})${storage === 'shards' ? '; use more shards' : "; use kind 'blocked', which shards over many keys"}`,
    );
  }
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
export function paramsOf(
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
