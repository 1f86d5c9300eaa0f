export {
  BinaryFuseFilter,
  type FuseBuildOptions,
  type FuseReference,
  MAX_FUSE_KEYS,
} from './binary-fuse-filter.js';
export { fuseKind } from './fuse-codec.js';
export { type FuseLayout, fuseLayout } from './fuse-layout.js';
