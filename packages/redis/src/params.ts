import { FormatError } from '@bloomkit/core';

/** The kinds a filter in Redis can be. */
export const REDIS_KINDS = ['standard', 'partitioned', 'counting', 'blocked', 'scalable'] as const;
export type RedisFilterKind = (typeof REDIS_KINDS)[number];

/**
 * A filter's parameters, stored in Redis as the hash `bloomkit:{NAME}:meta` so that any process opens the filter
 * by name. Besides these fields the hash holds `count` (adds that returned true), `state` (`creating` until the
 * storage is allocated, then `ready`) and, for scalable filters, `filters` and `count:i` per sub-filter.
 */
export interface RedisFilterParams {
  readonly kind: RedisFilterKind;
  readonly seed: number;
  /** m: bits (counters for counting). For scalable, of sub-filter 0. */
  readonly bits: number;
  /** k (for scalable, of sub-filter 0). */
  readonly hashes: number;
  /** 0 for bits, 4 or 8 for counting. */
  readonly counterBits: number;
  /** What `create` sized it for (null when built from bits and hashes). For scalable: n0, the first capacity. */
  readonly capacity: number | null;
  readonly fpr: number | null;
  /** Blocked: number of shards and 512-bit blocks per shard (the last shard may hold fewer). */
  readonly shards: number;
  readonly shardBlocks: number;
  /** Scalable: growth g and tightening r. */
  readonly growth: number;
  readonly tightening: number;
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
  ];
}

/** Marks a meta hash as bloomkit's, format version 1. */
const FORMAT_TAG = 'bloomkit/1';

/** Reads the meta hash back (HGETALL's reply); anything else than what {@link encodeParams} wrote is refused. */
export function decodeParams(where: string, name: string, fields: Record<string, string>): RedisFilterParams {
  if (fields.format !== FORMAT_TAG) {
    throw new FormatError(
      `${where}: the Redis key bloomkit:{${name}}:meta is not a bloomkit filter (format field ${JSON.stringify(fields.format)})`,
    );
  }
  const kind = fields.kind as RedisFilterKind;
  if (!REDIS_KINDS.includes(kind))
    throw new FormatError(`${where}: unknown kind ${JSON.stringify(fields.kind)}`);
  const int = (field: string) => {
    const value = Number(fields[field]);
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new FormatError(
        `${where}: meta field ${field} must be a non-negative integer, got ${JSON.stringify(fields[field])}`,
      );
    }
    return value;
  };
  const optional = (field: string) =>
    fields[field] === '' || fields[field] === undefined ? null : Number(fields[field]);
  return {
    kind,
    seed: int('seed'),
    bits: int('bits'),
    hashes: int('hashes'),
    counterBits: int('counterBits'),
    capacity: optional('capacity'),
    fpr: optional('fpr'),
    shards: int('shards'),
    shardBlocks: int('shardBlocks'),
    growth: int('growth'),
    tightening: Number(fields.tightening),
  };
}

/** The fields two creators must agree on; the first one that differs, or undefined. */
export function firstDifference(a: RedisFilterParams, b: RedisFilterParams): string | undefined {
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
  ] as const) {
    if (a[field] !== b[field]) return `${field} ${String(a[field])} vs ${String(b[field])}`;
  }
  return undefined;
}
