import type { Layout } from './layout.js';
import { blockedLayout } from './layouts/blocked.js';
import { partitionedLayout } from './layouts/partitioned.js';
import { standardLayout } from './layouts/standard.js';

/**
 * The kind registry: one record per format kind (docs/FORMAT.md §2). Ids are never reused: 0 is invalid, 1–127
 * are bloomkit's (unassigned ones reserved for future kinds), 128–255 are for private extensions and are never
 * assigned by bloomkit. A new kind is one record here (and, for a new layout, one file under `layouts/`).
 */
export interface KindRecord {
  /** The format id (byte 5 of the header). */
  readonly id: number;
  /** The kind's name: `standard`, `partitioned`, … */
  readonly name: string;
  /** The class that reads and writes it, for messages. */
  readonly className: string;
  /**
   * How the params block and payload are laid out: `single` is the 40-byte single-filter block over a bit or
   * counter array (§3.1–3.3); `chain` is the scalable block over nested envelopes (§3.4).
   */
  readonly params: 'single' | 'chain';
  /** The layout of the positions (single filters; the sub-filters of a chain are partitioned). */
  readonly layout: Layout;
  /** The counter widths the params block may hold: [0] for bit filters. */
  readonly counterWidths: readonly number[];
}

export const FilterKind = {
  Standard: 1,
  Partitioned: 2,
  Counting: 3,
  Scalable: 4,
  Blocked: 5,
} as const;
export type FilterKind = (typeof FilterKind)[keyof typeof FilterKind];

export const KINDS: readonly KindRecord[] = [
  {
    id: FilterKind.Standard,
    name: 'standard',
    className: 'StandardBloomFilter',
    params: 'single',
    layout: standardLayout,
    counterWidths: [0],
  },
  {
    id: FilterKind.Partitioned,
    name: 'partitioned',
    className: 'PartitionedBloomFilter',
    params: 'single',
    layout: partitionedLayout,
    counterWidths: [0],
  },
  {
    id: FilterKind.Counting,
    name: 'counting',
    className: 'CountingBloomFilter',
    params: 'single',
    layout: standardLayout,
    counterWidths: [4, 8, 16],
  },
  {
    id: FilterKind.Scalable,
    name: 'scalable',
    className: 'ScalableBloomFilter',
    params: 'chain',
    layout: partitionedLayout,
    counterWidths: [0],
  },
  {
    id: FilterKind.Blocked,
    name: 'blocked',
    className: 'BlockedBloomFilter',
    params: 'single',
    layout: blockedLayout,
    counterWidths: [0],
  },
];

/** The record of kind `id`, or undefined for an unknown id. */
export function kindById(id: number): KindRecord | undefined {
  return KINDS.find((kind) => kind.id === id);
}

/** "1 standard, 2 partitioned, …": the known kinds, for messages. */
export function knownKinds(): string {
  return KINDS.map((kind) => `${kind.id} ${kind.name}`).join(', ');
}
