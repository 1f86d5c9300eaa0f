export { ScalableBloomFilter, type ScalableOptions, scalableKind } from './scalable-bloom-filter.js';
export {
  DEFAULT_GROWTH,
  DEFAULT_TIGHTENING,
  GROWTH_FACTORS,
  MAX_SUB_FILTERS,
  type Schedule,
  type SubFilterShape,
  subFilterShape,
} from './schedule.js';
