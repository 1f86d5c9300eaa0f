export type { FileChunk } from './chunks.js';
export type { RedisClient } from './client.js';
export { FilterNotFoundError, RedisFilterError } from './errors.js';
export { EVICTION_WARNING } from './eviction.js';
export type { RedisFilterInfo } from './filter-handle.js';
export { DEFAULT_SHARD_BYTES, type RedisFilterOptions } from './filter-params.js';
export { type FunctionsStatus, functionsSource, functionsVersion } from './functions.js';
export { type RedisStorage, redisKindNames } from './kinds.js';
export type { LocalFilter } from './local.js';
export {
  type CuckooTable,
  type FuseTable,
  MAX_STRING_BITS,
  type RedisFilterParams,
} from './params.js';
export { RedisBloomFilter } from './redis-bloom-filter.js';
export { ClockSkewError, DEFAULT_CLOCK_TOLERANCE_MS } from './window-clock.js';
