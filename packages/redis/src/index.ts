export type { RedisClient } from './client.js';
export { FilterNotFoundError, RedisFilterError } from './errors.js';
export type { LocalFilter } from './local.js';
export {
  MAX_STRING_BITS,
  REDIS_KINDS,
  type RedisFilterKind,
  type RedisFilterParams,
} from './params.js';
export {
  DEFAULT_SHARD_BYTES,
  RedisBloomFilter,
  type RedisFilterInfo,
  type RedisFilterOptions,
} from './redis-bloom-filter.js';
