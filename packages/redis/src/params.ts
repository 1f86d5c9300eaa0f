import { FormatError } from '@bloomkit/core';
import { MAX_SUB_FILTERS } from '@bloomkit/scalable';
import { MAX_STRING_BITS } from './bytes.js';
import { type ChainShape, encodeChainShapes } from './chain-shapes.js';
import { metaKey } from './keys.js';
import { MAX_SHARDS } from './meta-fields.js';

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
  /** Cuckoo: the table's shape and walk (the meta hash's `table`, f:b:n:kicks); undefined for every other kind. */
  readonly table?: CuckooTable | undefined;
  /**
   * Fuse: the fingerprint bits and the 64-bit seed of the key mixing (the meta hash's `fuse`, f:seed in 16 hex
   * digits); its segments follow from `capacity`, the keys the set was built from (fuseLayout of `@bloomkit/fuse`).
   * Undefined for every other kind.
   */
  readonly fuse?: FuseTable | undefined;
}

/** A binary fuse filter's fixed set in Redis: what its fingerprints were built with besides its size. */
export interface FuseTable {
  /** Bits of a fingerprint: 8 or 16. */
  readonly fingerprintBits: 8 | 16;
  /** The reference's 64-bit `Seed` of the key mixing. */
  readonly seed: bigint;
}

/** The meta hash's `fuse`: f:seed, the seed as {@link fuseSeedText} writes it. */
export function encodeFuseTable(fuse: FuseTable): string {
  return `${fuse.fingerprintBits}:${fuseSeedText(fuse.seed)}`;
}

/** A fuse filter's 64-bit mixing seed as the meta hash and the scripts take it: 16 lower-case hex digits. */
export function fuseSeedText(seed: bigint): string {
  return seed.toString(16).padStart(16, '0');
}

/** A cuckoo filter's table in Redis: n buckets of b slots of f bits, walks of at most `maxKicks`. */
export interface CuckooTable {
  /** f: bits a fingerprint, 4 to 24. */
  readonly fingerprintBits: number;
  /** b: slots a bucket. */
  readonly bucketSize: 2 | 4 | 8;
  /** n: buckets. */
  readonly buckets: number;
  /** The longest walk of an add, in kicks. */
  readonly maxKicks: number;
}

/** The meta hash's `table`: f:b:n:kicks. */
export function encodeCuckooTable(table: CuckooTable): string {
  return `${table.fingerprintBits}:${table.bucketSize}:${table.buckets}:${table.maxKicks}`;
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
    ...(params.table === undefined ? [] : ['table', encodeCuckooTable(params.table)]),
    ...(params.fuse === undefined ? [] : ['fuse', encodeFuseTable(params.fuse)]),
  ];
}

/** Marks a meta hash as bloomkit's, format version 1. */
export const FORMAT_TAG: string = 'bloomkit/1';

/** The largest value a u32 field (seed, generation) may hold. */
export const MAX_U32: number = 2 ** 32 - 1;

export { MAX_SHARDS };

/** Reads the generation of a filter from its meta hash (see keys.ts): an integer in [1, 2^32 − 1]. */
export function decodeGeneration(where: string, name: string, fields: Record<string, string>): number {
  const text = fields.generation;
  const value = Number(text);
  // Written without leading zeros, and compared as text by every script that checks a handle's generation.
  if (text === undefined || !/^[1-9]\d*$/.test(text) || value > MAX_U32) {
    throw new FormatError(
      `${where}: meta field generation of ${metaKey(name)} must be an integer in [1, ${MAX_U32}] without leading zeros, got ${JSON.stringify(text)}`,
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
  // Text from the hash as the functions read it: digits only (no sign, fraction, spaces); a script's reply a number.
  const n =
    typeof value === 'string' ? (/^\d{1,4}$/.test(value) ? Number(value) : Number.NaN) : Number(value);
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
  // A cuckoo filter's bucket size is chosen, not sized (its f and n follow from capacity and fpr as m and k do).
  if (a.table?.bucketSize !== b.table?.bucketSize) {
    return `bucketSize ${String(a.table?.bucketSize)} vs ${String(b.table?.bucketSize)}`;
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
