import type { KindRecord } from './kinds.js';
import type { Geometry } from './positions.js';

/**
 * A layout: where a key's k positions may fall in m slots, and the math that follows from it. It is the one axis
 * along which the filter kinds differ in their bits (standard, partitioned, blocked); storage (bits or counters)
 * is the other axis, and it is the store's business. Each layout is one object in one file under `layouts/`; a
 * kind's record ({@link KindRecord}) names its layout, and nothing else switches on it.
 */
export interface Layout {
  /** The layout's name, as `info` and error messages print it. */
  readonly name: string;
  /**
   * m must be a multiple of this for k keys' positions (standard: 1; partitioned: k, so the slices are equal).
   * `create` searches m in these units, and the explicit constructor rounds an m up to one.
   */
  bitsUnit(hashes: number): number;
  /**
   * Optional: a lower bound on the m this layout needs for n keys at rate p with k positions, cheap to compute, so
   * `chooseShape` skips each k that cannot beat the best m found so far (it must never exceed the least m whose
   * `falsePositiveRate` is at most p, or the search could miss the smallest m). Layouts whose formula is cheap need
   * none.
   */
  bitsAtLeast?(keys: number, fpr: number, hashes: number): number;
  /** The geometry of the positions (docs/FORMAT.md §5) for a valid (m, k). */
  geometry(bits: number, hashes: number): Geometry;
  /** The expected false-positive rate with m slots and k positions per key after n distinct keys. */
  falsePositiveRate(bits: number, keys: number, hashes: number): number;
  /**
   * The most likely number of distinct keys that filled `set` of m slots (Swamidass & Baldi, J. Chem. Inf. Model.
   * 2007, eq. 5, in its exact form). Infinity when every slot is set.
   */
  estimateCount(set: number, bits: number, hashes: number): number;
  /** The largest m the layout addresses: 2^48 (MAX_BITS), or 2^41 for blocks of 512 bits. */
  readonly maxBits: number;
}
