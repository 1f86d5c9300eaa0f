export { CapacityError } from './capacity-error.js';
export { cuckooKind } from './cuckoo-codec.js';
export { CuckooFilter } from './cuckoo-filter.js';
export {
  type BucketSize,
  type CuckooCreateOptions,
  type CuckooPlan,
  type CuckooShape,
  cuckooShape,
  LOAD_AT_CAPACITY,
  MAX_KICKS,
} from './cuckoo-shape.js';
export { type CuckooTableOrigin, cuckooFromTable } from './cuckoo-table.js';
