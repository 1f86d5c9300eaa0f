export type { RedisClient } from './client.js';
export { RedisFilterError } from './errors.js';
export type { LocalFilter } from './local.js';
export { REDIS_KINDS, type RedisFilterKind, type RedisFilterParams } from './params.js';
export {
  DEFAULT_SHARD_BYTES,
  MAX_STRING_BITS,
  RedisBloomFilter,
  type RedisFilterInfo,
  type RedisFilterOptions,
} from './redis-bloom-filter.js';
