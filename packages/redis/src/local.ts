import type { BlockedBloomFilter } from '@bloomkit/blocked';
import type { CountingBloomFilter } from '@bloomkit/counting';
import type { PartitionedBloomFilter } from '@bloomkit/partitioned';
import type { ScalableBloomFilter } from '@bloomkit/scalable';
import type { StandardBloomFilter } from '@bloomkit/standard';

/** The local filter classes a Redis filter converts to and from (export, import). */
export type LocalFilter =
  | StandardBloomFilter
  | PartitionedBloomFilter
  | CountingBloomFilter
  | BlockedBloomFilter
  | ScalableBloomFilter;
