export { StandardBloomFilter, standardKind } from './standard-bloom-filter.js';
