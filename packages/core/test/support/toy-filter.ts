import { BitArray } from '../../src/bit-array.js';
import { CounterArray } from '../../src/counter-array.js';
import { BloomEngine } from '../../src/engine.js';
import { FilterKind, type KindRecord, kindById } from '../../src/kinds.js';
import { type FilterShapeOptions, type FilterState, resolveShape, resolveState } from '../../src/shape.js';

/** The smallest possible engine subclasses, to test the shared machinery without a filter package. */
export function toyBitFilterClass(kindId: number = FilterKind.Standard) {
  const kind: KindRecord = kindById(kindId)!;
  return class ToyBitFilter extends BloomEngine<BitArray> {
    constructor(options: FilterShapeOptions, state?: FilterState<BitArray>) {
      const shape = resolveShape(kind, options);
      const resolved = resolveState(kind, state);
      super(kind, shape, resolved.storage ?? new BitArray(shape.bits), resolved);
    }
  };
}

export class ToyCountingFilter extends BloomEngine<CounterArray> {
  constructor(options: FilterShapeOptions & { counterBits?: 4 | 8 | 16 }, state?: FilterState<CounterArray>) {
    const kind = kindById(FilterKind.Counting)!;
    const shape = resolveShape(kind, options);
    const resolved = resolveState(kind, state);
    super(kind, shape, resolved.storage ?? new CounterArray(shape.bits, options.counterBits ?? 4), resolved);
  }
}
