import type { RedisStorage } from '../kinds.js';
import { BITS } from './bits.js';
import { CHAIN } from './chain.js';
import { COUNTERS } from './counters.js';
import { CUCKOO } from './cuckoo.js';
import type { StorageFamily } from './family.js';
import { FUSE_FAMILY } from './fuse.js';
import { RING } from './ring.js';
import { SHARDS } from './shards.js';

export type { BaseParams, CommonParams, Plan, StorageFamily } from './family.js';
export { DEFAULT_SHARD_BYTES } from './shards.js';

/** The storage families, one record each (kinds.ts says which family a kind is). */
export const FAMILIES: Readonly<Record<RedisStorage, StorageFamily>> = {
  bits: BITS,
  shards: SHARDS,
  counters: COUNTERS,
  chain: CHAIN,
  ring: RING,
  cuckoo: CUCKOO,
  fuse: FUSE_FAMILY,
};
