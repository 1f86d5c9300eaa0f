import { type KindRecord, partitionedLayout } from '@bloomkit/core';

/** Kind 7 of docs/FORMAT.md: an age-partitioned ring of slices that forgets old keys. */
export const windowKind: KindRecord = {
  id: 7,
  name: 'window',
  className: 'WindowBloomFilter',
  params: 'ring',
  // Slice j's bit is position j of the partitioned layout with k + l positions of range s (FORMAT.md §5).
  layout: partitionedLayout,
  counterWidths: [0],
};

/** The class's name, as its messages begin. */
export const NAME: string = windowKind.className;

/**
 * The names single-key `add` and `has` give the hash for its errors, made once here: a template of the imported
 * NAME in the call is built anew at every call (window add 5.42 against 4.16 M keys/s at 10^6 URL keys).
 */
export const ADD_WHERE: string = `${NAME}.add`;
export const HAS_WHERE: string = `${NAME}.has`;
