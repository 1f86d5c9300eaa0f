export {
  CountingBloomFilter,
  type CountingCreateOptions,
  type CountingShapeOptions,
  DEFAULT_COUNTER_BITS,
} from './counting-bloom-filter.js';
