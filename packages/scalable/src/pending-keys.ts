/** What a run asks each sub-filter: the batch lookup every bloomkit filter has. */
export interface HashBatchFilter {
  hasHashes(hashes: Int32Array, count: number, answers: Uint8Array): void;
}

/** The most keys one run holds. */
export const RUN_KEYS = 1024;

/**
 * A run of a batch's keys on its way through a chain of sub-filters: the hashes of the keys still unanswered, in
 * order, with where each came from in the batch. Each sub-filter answers the whole run in one `hasHashes` call (its
 * WebAssembly kernel, where it has one, reads the slots of all the run's keys together), and the keys it may hold
 * leave the run. So a key costs one batch probe per sub-filter it is not found in, as `has` key by key, but the
 * probes of a run overlap instead of waiting on one cache miss after another.
 *
 * One instance serves every chain: a run is taken and used up within one call, and nothing it calls comes back here.
 */
export class PendingKeys {
  /** h1..h4 of pending key j at [4j, 4j + 4). */
  readonly hashes: Int32Array = new Int32Array(4 * RUN_KEYS);
  /** Pending key j's index in the run: its batch index less the run's start. */
  readonly origin: Int32Array = new Int32Array(RUN_KEYS);
  /** One sub-filter's answers for the run, or the newest sub-filter's adds. */
  readonly answers: Uint8Array = new Uint8Array(RUN_KEYS);
  /** How many keys are pending. */
  count = 0;

  /** Takes keys [start, end) of a batch (`end - start` ≤ {@link RUN_KEYS}; key j's h1..h4 at `hashes[4j ..]`). */
  take(hashes: Int32Array, start: number, end: number): void {
    this.hashes.set(hashes.subarray(4 * start, 4 * end));
    const origin = this.origin;
    for (let j = start; j < end; j++) origin[j - start] = j - start;
    this.count = end - start;
  }

  /**
   * Asks `filter` about every pending key and keeps, in order, only those it certainly does not hold. For each key
   * it may hold, `found[at + origin]` is set to 1 when `found` is given.
   */
  dropHeldBy(filter: HashBatchFilter, found?: Uint8Array, at = 0): void {
    const count = this.count;
    if (count === 0) return;
    const { hashes, origin, answers } = this;
    filter.hasHashes(hashes, count, answers);
    let kept = 0;
    for (let j = 0; j < count; j++) {
      if (answers[j] === 0) {
        if (kept !== j) {
          const from = 4 * j;
          const to = 4 * kept;
          hashes[to] = hashes[from]!;
          hashes[to + 1] = hashes[from + 1]!;
          hashes[to + 2] = hashes[from + 2]!;
          hashes[to + 3] = hashes[from + 3]!;
          origin[kept] = origin[j]!;
        }
        kept++;
      } else if (found !== undefined) {
        found[at + origin[j]!] = 1;
      }
    }
    this.count = kept;
  }
}
