export { BlockedBloomFilter } from './blocked-bloom-filter.js';
