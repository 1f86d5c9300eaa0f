export { StandardBloomFilter } from './standard-bloom-filter.js';
