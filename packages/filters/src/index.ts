// @bloomkit/filters: every bloomkit filter kind in one table. Read a file of any kind, build a filter by its
// kind's name, find the class of a filter or of bytes, register a private kind.
export {
  type AnyDecoded,
  deserializeAny,
  fromJSONAny,
  kindOfBytes,
  kindOfHeader,
  requireKind,
} from './any.js';
export { createFilter, type FilterSpec } from './create.js';
export {
  buildFilterBlock,
  type FilterBlockKind,
  type FilterBlockOptions,
  type FilterBlockReader,
  type OpenFilterBlockOptions,
  openFilterBlock,
} from './filter-block.js';
export {
  type CreateOptions,
  type ExplicitShape,
  type FilterClass,
  isSingleKind,
  type ReadOptions,
  type SingleFilterClass,
} from './filter-class.js';
export {
  type AnyFilter,
  classOf,
  describeKinds,
  kindById,
  kindByName,
  kindNames,
  kinds,
  registerKind,
} from './kinds.js';
