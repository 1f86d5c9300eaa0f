export { BlockedBloomFilter, blockedKind } from './blocked-bloom-filter.js';
