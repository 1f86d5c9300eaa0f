export { BinaryFuseFilter } from './binary-fuse-filter.js';
export { fuseKind } from './fuse-codec.js';
export { type FuseLayout, fuseLayout } from './fuse-layout.js';
export {
  type FuseBuildOptions,
  type FuseReference,
  fingerprintBitsFor,
  MAX_FUSE_KEYS,
} from './fuse-options.js';
export { type FuseTableOrigin, fuseFromTable } from './fuse-table.js';
