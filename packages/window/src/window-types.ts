import type { DeserializeOptions, SeedOption } from '@bloomkit/core';

/** Options of {@link WindowBloomFilter.create}. */
export interface WindowOptions extends SeedOption {
  /**
   * A time window, in milliseconds (an integer in [1, 2^40], about 34.8 years): every key added within the last `duration` is
   * present while at most `window` keys arrive per `duration`. More keys shorten the memory (see
   * {@link WindowBloomFilter.shortened}); the rate stays. Keys are forgotten at most 2·duration after they were
   * added. Without it, the window counts keys.
   */
  readonly duration?: number | undefined;
  /**
   * The time in milliseconds since the epoch, for a time window; default `Date.now`. A reading is input, not
   * truth: one behind the newest generation's start counts as that start, one far ahead ends at most k + l
   * generations, and one that is not in [0, 2^47] (NaN, negative, past the year 6429) is refused with an
   * InvalidArgumentError, changing nothing. It must only read the time: one that calls back into this filter is
   * refused the same way. Tests inject their own.
   */
  readonly clock?: (() => number) | undefined;
}

/** Options of {@link WindowBloomFilter.deserialize}. */
export interface WindowReadOptions extends DeserializeOptions, Pick<SeedOption, 'maxBytes'> {
  /** The clock of a time window (default `Date.now`). */
  readonly clock?: (() => number) | undefined;
}

/**
 * A window's ring as a store outside this class keeps it (`@bloomkit/redis`): the state of its generations and its
 * slices' bytes (docs/FORMAT.md §3.6).
 */
export interface WindowRing {
  /** The slice of age 0. */
  readonly newest: number;
  /** Per slice j: keys of the generation that began at it, and when (ms; 0 in a count window). */
  readonly keys: readonly number[];
  /** Per slice j: when the generation that began at it began (ms; 0 in a count window). */
  readonly starts: readonly number[];
  /** Adds that returned true. */
  readonly count: number;
  /** The (k + l)·s bits, slice j at bits [j·s, (j + 1)·s). */
  readonly bytes: Uint8Array;
}

/** How far back a key can still be found: past both, it is present at most at the target rate. */
export interface WindowHorizon {
  /** (k + l)·g: a key followed by this many adds has had every one of its slices cleared. */
  readonly keys: number;
  /** A time window: (k + l)·period ms, the same on the clock alone. Undefined for a count window. */
  readonly ms: number | undefined;
}

/** What the window remembers now. */
export interface WindowReach {
  /** Keys added since `since` (the newest generations still whole): every one of them is present. */
  readonly keys: number;
  /**
   * A time window: every key added at a time later than this (ms) is present. A key added at exactly this time may
   * belong to the generation before (one that filled and ended in that millisecond). Undefined for a count window.
   */
  readonly since: number | undefined;
}
