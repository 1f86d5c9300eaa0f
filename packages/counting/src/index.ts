export {
  CountingBloomFilter,
  type CountingCreateOptions,
  type CountingShapeOptions,
  countingKind,
  DEFAULT_COUNTER_BITS,
} from './counting-bloom-filter.js';
