import { type FilterClass, kindByName } from '@bloomkit/filters';
import type { PlotSpec } from './plot.js';
import { type Row, row } from './rows.js';
import { sizeSingle, sizeSplitBlock } from './size-bits.js';
import { sizeChain } from './size-chain.js';
import { sizeCuckoo } from './size-cuckoo.js';
import { sizeFuse } from './size-fuse.js';
import { sizeRing } from './size-window.js';

/**
 * Sizing a filter of any kind from what the user knows, with the kinds' own sizing code: core's `solveShape` over
 * the kind's layout (the single kinds), `splitBlockBitsetBytes` (Parquet), the scalable schedule's `chainAt`, the
 * window's `shapeOf`, `windowRate` and `windowPresence`. Nothing here computes a size or a rate of its own.
 */

/** What the fields hold; undefined where a field is blank. */
export interface SizeInput {
  readonly capacity?: number | undefined;
  readonly fpr?: number | undefined;
  readonly bits?: number | undefined;
  readonly hashes?: number | undefined;
  readonly counterBits?: number | undefined;
  readonly growth?: number | undefined;
  readonly tightening?: number | undefined;
  readonly keys?: number | undefined;
  readonly duration?: number | undefined;
  readonly inner?: string | undefined;
}

export interface Sized {
  readonly rows: readonly Row[];
  readonly plot: PlotSpec | undefined;
}

/** Sizes a filter of kind `Class` (its record's `params` says which fields count). */
export function size(Class: FilterClass, input: SizeInput): Sized {
  switch (Class.kind.params) {
    case 'single':
      return sizeSingle(Class, input);
    case 'split-block':
      return sizeSplitBlock(input);
    case 'chain':
      return sizeChain(input);
    case 'ring':
      return sizeRing(input);
    case 'wrapper':
      return sizeWrapper(input);
    case 'fuse':
      return sizeFuse(input);
    case 'cuckoo':
      return sizeCuckoo(input);
  }
}

/** Exceptions: the nested kind's size; the exception keys come on top, each with its bytes. */
function sizeWrapper(input: SizeInput): Sized {
  const inner = kindByName(input.inner ?? 'standard');
  if (inner === undefined || inner.kind.params === 'wrapper') {
    throw new RangeError(`exceptions: the nested kind must be another kind, got ${String(input.inner)}`);
  }
  const sized = size(inner, input);
  return {
    rows: [
      row('inner', 'nested kind', inner.kind.name),
      ...sized.rows,
      row('exceptions', 'each exception key', 'its bytes + a length', 'its bytes + a length, kept sorted'),
    ],
    plot: sized.plot,
  };
}
