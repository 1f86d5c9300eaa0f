export { PartitionedBloomFilter, partitionedKind } from './partitioned-bloom-filter.js';
