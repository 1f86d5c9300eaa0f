import { CapacityError } from '@bloomkit/cuckoo';
import type { AnyFilter, HashingFilter } from './filters.js';

/** What dedup asks of a filter: test-and-add of hashed lines, as LineBatch and LongLineDedup call it. */
export type DedupAdder = Pick<HashingFilter, 'addHash' | 'addHashes' | 'seed'>;

/**
 * Dedup's adds for a filter that stores one more copy per add (a cuckoo filter, as RedisBloom's `CF.ADD`): a line
 * is added only when the filter answers it absent, so a repeated line costs no slot (every repeat stored a copy
 * before, and a line seen 2b + 1 times, 9 with buckets of 4, filled its two buckets and ended the run with exit 2).
 * The answers are those of a Bloom filter's test-and-add, line by line, a repeat inside a batch included.
 *
 * Past its room, a line the filter cannot record (CapacityError, nothing changed) is still new, so it is printed
 * and the filter is left as it was: `full` is set, `onFull` is called once (the caller warns and exits 3, as a
 * Bloom filter past its capacity does), and a later copy of such a line is printed again, since nothing holds it.
 */
export class FirstCopies implements DedupAdder {
  /** Lines printed that the filter could not record. */
  unrecorded = 0;

  constructor(
    private readonly filter: HashingFilter,
    private readonly onFull: () => void,
  ) {}

  get seed(): number {
    return this.filter.seed;
  }

  addHash(hash: Int32Array, at = 0): boolean {
    if (this.filter.hasHash(hash, at)) return false;
    try {
      this.filter.addHash(hash, at);
    } catch (error) {
      if (!(error instanceof CapacityError)) throw error;
      if (this.unrecorded++ === 0) this.onFull();
    }
    return true;
  }

  addHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    let fresh = 0;
    for (let j = 0; j < count; j++) {
      const isNew = this.addHash(hashes, 4 * j);
      if (answers !== undefined) answers[j] = isNew ? 1 : 0;
      if (isNew) fresh++;
    }
    return fresh;
  }
}

/** Whether a filter stores a copy per add, so that dedup must add only absent lines (a cuckoo filter's `countOf`). */
export function storesCopies(filter: AnyFilter): boolean {
  return typeof (filter as { countOf?: unknown }).countOf === 'function';
}
