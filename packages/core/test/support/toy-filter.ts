import type { BitArray } from '../../src/bit-array.js';
import type { CounterArray } from '../../src/counter-array.js';
import { BloomEngine } from '../../src/engine.js';
import type { KindRecord } from '../../src/kinds.js';
import type { Layout } from '../../src/layout.js';
import { blockedLayout } from '../../src/layouts/blocked.js';
import { partitionedLayout } from '../../src/layouts/partitioned.js';
import { standardLayout } from '../../src/layouts/standard.js';
import { newBitArray } from '../../src/new-bit-array.js';
import { newCounterArray } from '../../src/new-counter-array.js';
import { type FilterShapeOptions, type FilterState, resolveShape, resolveState } from '../../src/shape.js';

/** A toy bit kind over `layout` (the ids of the kind packages, so the toy's bytes are theirs). */
export function toyKind(layout: Layout, counterWidths: readonly number[] = [0]): KindRecord {
  const id = counterWidths[0] !== 0 ? 3 : { standard: 1, partitioned: 2, blocked: 5 }[layout.name]!;
  return { id, name: `toy-${layout.name}`, className: 'Toy', params: 'single', layout, counterWidths };
}

export const TOY_STANDARD = toyKind(standardLayout);
export const TOY_PARTITIONED = toyKind(partitionedLayout);
export const TOY_BLOCKED = toyKind(blockedLayout);
export const TOY_COUNTING = toyKind(standardLayout, [4, 8, 16]);

/** The smallest possible engine subclasses, to test the shared machinery without a filter package. */
export function toyBitFilterClass(kind: KindRecord = TOY_STANDARD) {
  return class ToyBitFilter extends BloomEngine<BitArray> {
    constructor(options: FilterShapeOptions, state?: FilterState<BitArray>) {
      const shape = resolveShape(kind, options);
      const resolved = resolveState(kind, state);
      super(kind, shape, resolved.storage ?? newBitArray(shape.bits), resolved);
    }
  };
}

export class ToyCountingFilter extends BloomEngine<CounterArray> {
  constructor(options: FilterShapeOptions & { counterBits?: 4 | 8 | 16 }, state?: FilterState<CounterArray>) {
    const kind = TOY_COUNTING;
    const shape = resolveShape(kind, options);
    const resolved = resolveState(kind, state);
    super(kind, shape, resolved.storage ?? newCounterArray(shape.bits, options.counterBits ?? 4), resolved);
  }
}
