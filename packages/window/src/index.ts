export { WindowBloomFilter } from './window-bloom-filter.js';
export { windowKind } from './window-kind.js';
export { MAX_AGE_SLICES, type WindowShape, windowPresence, windowRate } from './window-sizing.js';
export type {
  WindowHorizon,
  WindowOptions,
  WindowReach,
  WindowReadOptions,
  WindowRing,
} from './window-types.js';
