import type { Layout } from './layout.js';

/**
 * The format facts of one filter kind (docs/FORMAT.md §2): what a reader needs to check a file of that kind. Each
 * kind's package defines its own record beside its class (the class's static `kind`); `@bloomkit/filters` lists the
 * kinds in its one table, and the format code here takes the record of the kind it reads or writes, so core holds
 * no list of kinds.
 *
 * Ids are never reused: 0 is invalid, 1–127 are bloomkit's (unassigned ones reserved for future kinds), 128–255 are
 * for private extensions and are never assigned by bloomkit.
 */
export interface KindRecord {
  /** The format id (byte 5 of the header). */
  readonly id: number;
  /** The kind's name: `standard`, `partitioned`, … (also the JSON form's `kind` and the CLI's `--kind`). */
  readonly name: string;
  /** The class that reads and writes it, for messages. */
  readonly className: string;
  /**
   * How the params block and payload are laid out: `single` is the 40-byte single-filter block over a bit or
   * counter array (§3.1–3.3); `chain` is the chain block over nested envelopes (§3.4); `wrapper` is a block of the
   * kind's own over one nested envelope of another kind, which holds the positions (§3.5, kind 6 exceptions);
   * `ring` is a ring of age slices with the state of its generations (§3.6, kind 7 window); `split-block` is
   * Parquet's split-block filter, blocks of eight 32-bit words hashed by XXH64 (§3.7, kind 8); `fuse` is a binary
   * fuse filter of a fixed set, fingerprints XORed over three slots (§3.8, kind 9); `cuckoo` is a cuckoo filter,
   * fingerprints in two buckets of a table (§3.9, kind 10).
   */
  readonly params: 'single' | 'chain' | 'wrapper' | 'ring' | 'split-block' | 'fuse' | 'cuckoo';
  /**
   * The envelope's hash algorithm byte for this kind (docs/FORMAT.md §1): 1, MurmurHash3 x86_128, when absent;
   * 2, XXH64, for the split-block kind. A reader refuses a file of the kind with another.
   */
  readonly hashAlgorithm?: 1 | 2;
  /**
   * The layout of the positions (single filters; for a chain, the layout of its sub-filters; a wrapper has none of
   * its own, its nested filter's kind says which, and its record names the standard layout as a placeholder).
   */
  readonly layout: Layout;
  /** The counter widths the params block may hold: [0] for bit filters. */
  readonly counterWidths: readonly number[];
}
