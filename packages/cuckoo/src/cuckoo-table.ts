import { encodeNestedParts, joinParts, resolveSeed } from '@bloomkit/core/internal';
import { cuckooKind, readParams, writeParams } from './cuckoo-codec.js';
import { checkedHeld } from './cuckoo-file.js';
import { CuckooFilter } from './cuckoo-filter.js';
import type { CuckooShape } from './cuckoo-shape.js';
import { SlotTable } from './slot-table.js';

/** What {@link cuckooFromTable} builds a filter with: the shape and sizing a table was made with, and its seed. */
export interface CuckooTableOrigin extends CuckooShape {
  /** The longest walk of an add, in kicks (`MAX_KICKS` for a table `create` made). */
  readonly maxKicks: number;
  /** The keys the table was sized for. */
  readonly capacity: number;
  /** The rate targeted at capacity. */
  readonly fpr: number;
  /** The 32-bit hash seed. */
  readonly seed: number;
}

/**
 * A filter over a table's bytes: the payload of docs/FORMAT.md §3.9 (the packed slots, as `payloadParts()` gives
 * them and `@bloomkit/redis` keeps them), with the shape, sizing and seed it was made with. Checked as a file's
 * table is (the shape and sizing as its params block, the length, the pad bits 0: FormatError otherwise), copied,
 * its fingerprints counted from the slots.
 */
export function cuckooFromTable(made: CuckooTableOrigin, bytes: Uint8Array): CuckooFilter {
  const where = 'cuckooFromTable';
  const checked = readParams(new DataView(writeParams({ ...made, held: 0 }).buffer), bytes.length, where);
  const seed = resolveSeed(where, made.seed);
  const table = SlotTable.empty(checked.buckets * checked.bucketSize, checked.fingerprintBits);
  table.bytes.set(bytes);
  const params = { ...checked, held: checkedHeld(table, where) };
  const parts = encodeNestedParts(cuckooKind, seed, writeParams(params), [table.payload()]);
  return CuckooFilter.deserialize(joinParts(cuckooKind, parts), { copy: false });
}
