export {
  WindowBloomFilter,
  type WindowHorizon,
  type WindowOptions,
  type WindowReach,
  type WindowReadOptions,
  type WindowRing,
  windowKind,
} from './window-bloom-filter.js';
export { MAX_AGE_SLICES, type WindowShape, windowPresence, windowRate } from './window-sizing.js';
