export { ScalableBloomFilter } from './scalable-bloom-filter.js';
export { type ScalableOptions, scalableKind } from './scalable-kind.js';
export {
  chainAt,
  checkGrowthFactor,
  DEFAULT_GROWTH,
  DEFAULT_TIGHTENING,
  MAX_GROWTH,
  MAX_SUB_FILTERS,
  MIN_GROWTH,
  type Schedule,
  type SubFilterShape,
  subCapacities,
  subFilterShape,
  subFprs,
} from './schedule.js';
