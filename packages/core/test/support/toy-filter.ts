import type { BitArray } from '../../src/bit-array.js';
import { BitFilter, readBitFilter } from '../../src/bit-filter.js';
import type { DeserializeOptions } from '../../src/filter.js';
import { FilterKind } from '../../src/format.js';
import {
  type FilterKindInfo,
  type FilterShapeOptions,
  type FilterState,
  planShape,
  resolveShape,
} from '../../src/hashed-filter.js';
import type { Layout } from '../../src/params.js';

/** The smallest possible BitFilter subclass, to test the shared machinery without a filter package. */
export function toyFilterClass(layout: Layout) {
  const info: FilterKindInfo = {
    kind: layout === 'standard' ? FilterKind.Standard : FilterKind.Partitioned,
    name: 'ToyFilter',
    layout,
  };
  class ToyFilter extends BitFilter<ToyFilter> {
    constructor(options: FilterShapeOptions, state: FilterState<BitArray> = {}) {
      super(info, resolveShape(info, options), state);
    }
    static create(capacity: number, fpr: number): ToyFilter {
      const plan = planShape(info, capacity, fpr);
      return new ToyFilter(plan, { capacity, fpr });
    }
    static deserialize(bytes: Uint8Array, options?: DeserializeOptions): ToyFilter {
      const { shape, state } = readBitFilter(info, bytes, options);
      return new ToyFilter(shape, state);
    }
    protected spawn(storage: BitArray, count: number): ToyFilter {
      return new ToyFilter(this.shape(), { storage, count, capacity: this.capacity, fpr: this.fpr });
    }
  }
  return ToyFilter;
}
