export {
  WindowBloomFilter,
  type WindowHorizon,
  type WindowOptions,
  type WindowReach,
  type WindowReadOptions,
  windowKind,
} from './window-bloom-filter.js';
export { MAX_AGE_SLICES, windowRate } from './window-sizing.js';
