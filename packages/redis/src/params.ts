import { BLOCK_BITS, FormatError, MAX_BLOCKED_BITS, MAX_HASHES } from '@bloomkit/core';
import { MAX_GROWTH, MAX_SUB_FILTERS, MIN_GROWTH } from '@bloomkit/scalable';
import { WindowBloomFilter } from '@bloomkit/window';
import { MAX_STRING_BITS } from './bytes.js';
import { type ChainShape, chainShapes, decodeChainShapes, encodeChainShapes } from './chain-shapes.js';
import { metaKey } from './keys.js';
import { redisKind, redisKindNames } from './kinds.js';

export { MAX_STRING_BITS };

/**
 * A filter's parameters, stored in Redis as the hash `bloomkit:{NAME}:meta` so that any process opens the filter
 * by name. Besides these fields the hash holds `count` (adds that returned true), `state` (`creating` until the
 * storage is allocated, then `ready`) and, for scalable filters, `filters` and `count:i` per sub-filter.
 */
export interface RedisFilterParams {
  /** The kind's name in the table of `@bloomkit/filters` (one Redis can hold, see kinds.ts). */
  readonly kind: string;
  /** The hash seed, an unsigned 32-bit integer. */
  readonly seed: number;
  /** m: bits (counters for counting). For scalable, of sub-filter 0. */
  readonly bits: number;
  /** k (for scalable, of sub-filter 0). */
  readonly hashes: number;
  /** 0 for bits, 4 or 8 for counting. */
  readonly counterBits: number;
  /** What `create` sized it for (null when built from bits and hashes). For scalable: n0, the first capacity. */
  readonly capacity: number | null;
  /** The target rate `create` sized it for (null when built from bits and hashes). For scalable: the total. */
  readonly fpr: number | null;
  /** Blocked: number of shards, the Redis keys the blocks are spread over. */
  readonly shards: number;
  /** Blocked: 512-bit blocks per shard (the last shard may hold fewer). */
  readonly shardBlocks: number;
  /** Scalable: growth g, the ratio of each sub-filter's capacity to the one before. */
  readonly growth: number;
  /** Scalable: tightening r, the ratio of each sub-filter's rate to the one before. */
  readonly tightening: number;
  /** True for a filter with an exception list (bit kinds: one set beside the bits, or beside each shard). */
  readonly exceptions: boolean;
  /** A window's time window in ms; 0 for a count window and every other kind. */
  readonly duration: number;
  /**
   * Scalable: m and k of every sub-filter the chain may hold, the first equal to `bits` and `hashes` (the meta
   * hash's `shapes`, see chain-shapes.ts); undefined for every other kind.
   */
  readonly shapes?: readonly ChainShape[] | undefined;
}

/** The fields written to the meta hash. Numbers are written as JavaScript prints them, which reads back exactly. */
export function encodeParams(params: RedisFilterParams): string[] {
  return [
    'format',
    FORMAT_TAG,
    'kind',
    params.kind,
    'seed',
    String(params.seed),
    'bits',
    String(params.bits),
    'hashes',
    String(params.hashes),
    'counterBits',
    String(params.counterBits),
    'capacity',
    params.capacity === null ? '' : String(params.capacity),
    'fpr',
    params.fpr === null ? '' : String(params.fpr),
    'shards',
    String(params.shards),
    'shardBlocks',
    String(params.shardBlocks),
    'growth',
    String(params.growth),
    'tightening',
    String(params.tightening),
    'exceptions',
    params.exceptions ? '1' : '0',
    'duration',
    String(params.duration),
    ...(params.shapes === undefined ? [] : ['shapes', encodeChainShapes(params.shapes)]),
  ];
}

/** Marks a meta hash as bloomkit's, format version 1. */
const FORMAT_TAG = 'bloomkit/1';

/** The largest value a u32 field (seed, generation) may hold. */
const MAX_U32 = 2 ** 32 - 1;

/**
 * Reads the meta hash back (HGETALL's reply) and checks it as a file header is checked: it is untrusted input
 * (any client can write the hash), and what it says is about to be allocated and looped over. Every field must be
 * what {@link encodeParams} writes for a filter this package can create: each within the format's limits (k in
 * [1, MAX_HASHES], a Redis string at most 2^32 bits, at most MAX_SUB_FILTERS sub-filters…) and consistent with the
 * others (m a whole number of the layout's units, the shard count the one m needs, a scalable filter's `bits`
 * and `hashes` those of the first of its `shapes`). Anything else is a FormatError naming the field, before any use.
 */
export function decodeParams(where: string, name: string, fields: Record<string, string>): RedisFilterParams {
  if (fields.format !== FORMAT_TAG) {
    throw new FormatError(
      `${where}: the Redis key ${metaKey(name)} is not a bloomkit filter (format field ${JSON.stringify(fields.format)})`,
    );
  }
  const found = redisKind(fields.kind);
  if (found === undefined) {
    throw new FormatError(
      `${where}: unknown kind ${JSON.stringify(fields.kind)} (known: ${redisKindNames().join(', ')})`,
    );
  }
  const { storage } = found;
  const record = found.Class.kind;
  const kind = record.name;
  const bad = (field: string, range: string) =>
    new FormatError(
      `${where}: meta field ${field} of ${metaKey(name)} must be ${range}, got ${JSON.stringify(fields[field])}`,
    );
  const int = (field: string, min: number, max: number) => {
    const text = fields[field];
    const value = Number(text);
    if (
      text === undefined ||
      !/^\d+$/.test(text) ||
      !Number.isSafeInteger(value) ||
      value < min ||
      value > max
    ) {
      throw bad(field, `an integer in [${min}, ${max}]`);
    }
    return value;
  };
  const rate = (field: string) => {
    const value = Number(fields[field]);
    if (!(value > 0 && value < 1)) throw bad(field, 'a number in (0, 1)');
    return value;
  };
  const seed = int('seed', 0, MAX_U32);
  const hashes = int('hashes', 1, MAX_HASHES);
  // Absent in a hash written before exceptions existed: none.
  const exceptions = fields.exceptions === undefined ? false : int('exceptions', 0, 1) === 1;
  if (exceptions && storage !== 'bits' && storage !== 'shards') {
    throw bad('exceptions', `0 for a ${kind} filter (exceptions live beside bits)`);
  }
  const sized = fields.capacity !== '' || fields.fpr !== '';
  const capacity = sized || storage === 'chain' ? int('capacity', 1, Number.MAX_SAFE_INTEGER) : null;
  const fpr = sized || storage === 'chain' ? rate('fpr') : null;
  // Absent in a hash written before windows existed: 0.
  const duration = fields.duration === undefined ? 0 : int('duration', 0, Number.MAX_SAFE_INTEGER);
  if (duration !== 0 && storage !== 'ring') throw bad('duration', `0 for a ${kind} filter`);
  const base = { kind, seed, hashes, capacity, fpr, exceptions, duration };
  const zero = (field: string) => int(field, 0, 0);
  /** The fields of a kind in one string: one shard, no shard blocks. */
  const oneString = () => ({ shards: int('shards', 1, 1), shardBlocks: zero('shardBlocks') });
  if (storage === 'chain') {
    const growth = Number(fields.growth);
    if (!(growth >= MIN_GROWTH && growth <= MAX_GROWTH)) {
      throw bad('growth', `a number in [${MIN_GROWTH}, ${MAX_GROWTH}]`);
    }
    const tightening = rate('tightening');
    const schedule = { initialCapacity: capacity!, fpr: fpr!, growth, tightening };
    // Absent in a hash written before `shapes` existed: the schedule's own sizing, as the filter was grown then.
    const shapes =
      fields.shapes === undefined
        ? chainShapes(schedule)
        : decodeChainShapes(where, name, fields.shapes, schedule);
    const first = shapes[0];
    if (first === undefined) throw bad('capacity', 'small enough for sub-filter 0 to fit one Redis string');
    const bits = int('bits', first.bits, first.bits);
    if (hashes !== first.hashes) throw bad('hashes', `${first.hashes}, the k of sub-filter 0 in shapes`);
    return { ...base, bits, counterBits: zero('counterBits'), ...oneString(), growth, tightening, shapes };
  }
  const fixed = { growth: zero('growth'), tightening: int('tightening', 0, 0) };
  if (storage === 'ring') {
    if (capacity === null) throw bad('capacity', 'the window, an integer in [1, 2^53 - 1]');
    let shape: { hashes: number; ageSlices: number; sliceBits: number };
    try {
      shape = WindowBloomFilter.shapeOf(capacity, fpr!, { duration: duration === 0 ? undefined : duration });
    } catch (error) {
      throw new FormatError(
        `${where}: meta of ${metaKey(name)} holds an impossible window: ${(error as Error).message}`,
      );
    }
    const ringBits = (shape.hashes + shape.ageSlices) * shape.sliceBits;
    const bits = int('bits', ringBits, ringBits);
    if (hashes !== shape.hashes) throw bad('hashes', `${shape.hashes}, what the window's sizing gives`);
    return { ...base, bits, counterBits: zero('counterBits'), ...oneString(), ...fixed };
  }
  if (storage === 'counters') {
    const counterBits = int('counterBits', 4, 8);
    if (counterBits !== 4 && counterBits !== 8) throw bad('counterBits', 'one of 4, 8');
    const bits = int('bits', 1, MAX_STRING_BITS / counterBits);
    return { ...base, bits, counterBits, ...oneString(), ...fixed };
  }
  if (storage === 'shards') {
    const bits = int('bits', BLOCK_BITS, MAX_BLOCKED_BITS);
    if (bits % BLOCK_BITS !== 0) throw bad('bits', `a multiple of ${BLOCK_BITS}`);
    const blocks = bits / BLOCK_BITS;
    const shardBlocks = int('shardBlocks', 1, Math.min(blocks, MAX_STRING_BITS / BLOCK_BITS));
    const shards = int('shards', 1, MAX_SHARDS);
    if (shards !== Math.ceil(blocks / shardBlocks)) {
      throw bad(
        'shards',
        `${Math.ceil(blocks / shardBlocks)}, the shards that ${blocks} blocks of ${shardBlocks} per shard need`,
      );
    }
    return { ...base, bits, counterBits: zero('counterBits'), shards, shardBlocks, ...fixed };
  }
  const bits = int('bits', 1, MAX_STRING_BITS);
  const unit = record.layout.bitsUnit(hashes);
  if (bits % unit !== 0) throw bad('bits', `a multiple of ${unit} (the layout's unit with k = ${hashes})`);
  return { ...base, bits, counterBits: zero('counterBits'), ...oneString(), ...fixed };
}

/** The most shards a blocked filter is cut into (create's limit on `shards`). */
export const MAX_SHARDS: number = 2 ** 20;

/** Reads the generation of a filter from its meta hash (see keys.ts): an integer in [1, 2^32 − 1]. */
export function decodeGeneration(where: string, name: string, fields: Record<string, string>): number {
  const text = fields.generation;
  const value = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || value < 1 || value > MAX_U32) {
    throw new FormatError(
      `${where}: meta field generation of ${metaKey(name)} must be an integer in [1, ${MAX_U32}], got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** A new filter's generation: random in [1, 2^32 − 1]. */
export function newGeneration(): number {
  const random = new Uint32Array(1);
  do crypto.getRandomValues(random);
  while (random[0] === 0);
  return random[0]!;
}

/**
 * The number of sub-filters of a scalable filter (the meta hash's `filters`, or a script's reply), checked before
 * it is looped over: an integer in [1, MAX_SUB_FILTERS].
 */
export function checkSubFilterCount(where: string, name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SUB_FILTERS) {
    throw new FormatError(
      `${where}: meta field filters of ${metaKey(name)} must be an integer in [1, ${MAX_SUB_FILTERS}], got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/**
 * The fields two creators must agree on; the first one that differs, or undefined. Two filters sized for the same
 * capacity and rate are the same filter whatever m and k the first creator picked: the functions library
 * (functions/bloomkit.lua) sizes on the server with its own log1p and expm1, a few ulps from core's, so on a
 * boundary it may pick m one unit apart. Filters built from bits and hashes agree on those.
 */
export function firstDifference(a: RedisFilterParams, b: RedisFilterParams): string | undefined {
  const sized = a.capacity !== null && b.capacity !== null;
  for (const field of [
    'kind',
    'seed',
    'bits',
    'hashes',
    'counterBits',
    'capacity',
    'fpr',
    'shards',
    'growth',
    'tightening',
    'exceptions',
    'duration',
  ] as const) {
    if (sized && (field === 'bits' || field === 'hashes')) continue;
    if (a[field] !== b[field]) return `${field} ${String(a[field])} vs ${String(b[field])}`;
  }
  return undefined;
}

/** A count read back from the meta hash (`count`, `count:i`): absent is 0, else a non-negative safe integer. */
export function checkCount(
  where: string,
  name: string,
  field: string,
  value: string | null | undefined,
): number {
  if (value === null || value === undefined) return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new FormatError(
      `${where}: meta field ${field} of ${metaKey(name)} must be a non-negative integer, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}
