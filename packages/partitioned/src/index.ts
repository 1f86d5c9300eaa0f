export { PartitionedBloomFilter } from './partitioned-bloom-filter.js';
