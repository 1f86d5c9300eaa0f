import { BitArray } from './bit-array.js';
import { FormatError, InvalidArgumentError } from './errors.js';
import type { DeserializeOptions } from './filter.js';
import {
  type FilterKindInfo,
  type FilterState,
  HashedFilter,
  type ResolvedShape,
  readFilterEnvelope,
} from './hashed-filter.js';
import { estimateCount } from './params.js';

/**
 * A Bloom filter over a {@link BitArray}: the standard and partitioned kinds differ only in their
 * {@link FilterKindInfo} (layout and format kind). Statistics use the fill ratio X/m (X = bits set):
 *
 * - expected rate now: (X/m)^k, the probability that k positions all hit set bits;
 * - estimated count: {@link estimateCount} (Swamidass & Baldi 2007).
 */
export abstract class BitFilter<Self extends BitFilter<Self>> extends HashedFilter<Self, BitArray> {
  protected constructor(info: FilterKindInfo, shape: ResolvedShape, state: FilterState<BitArray>) {
    const storage = state.storage ?? new BitArray(shape.bits);
    if (storage.size !== shape.bits) {
      throw new InvalidArgumentError(
        `new ${info.name}: state.storage must hold exactly ${shape.bits} bits, got ${storage.size}`,
      );
    }
    super(info, shape, storage, state);
  }

  protected insert(positions: Float64Array, offset: number): boolean {
    return this.storage.setAll(positions, this.hashes, offset);
  }

  protected probe(positions: Float64Array, offset: number): boolean {
    return this.storage.hasAll(positions, this.hashes, offset);
  }

  protected counterWidth(): number {
    return 0;
  }

  fillRatio(): number {
    return this.storage.popcount() / this.bits;
  }

  estimatedCount(): number {
    return estimateCount(this.storage.popcount(), this.bits, this.hashes, this.info.layout);
  }

  expectedFpr(): number {
    return this.fillRatio() ** this.hashes;
  }
}

/**
 * Reads a bit filter of `info`'s kind: checks the envelope, the params (no counter width; for the partitioned
 * layout m a multiple of k), that the payload holds exactly ⌈m/8⌉ bytes and that no padding bit is set.
 */
export function readBitFilter(
  info: FilterKindInfo,
  bytes: Uint8Array,
  options: DeserializeOptions = {},
): { shape: ResolvedShape; state: FilterState<BitArray> } {
  const where = `${info.name}.deserialize`;
  const { seed, params, payload } = readFilterEnvelope(info, bytes, options);
  if (params.counterBits !== 0)
    throw new FormatError(`${where}: counter width must be 0, got ${params.counterBits}`);
  if (info.layout === 'partitioned' && params.bits % params.hashes !== 0) {
    throw new FormatError(`${where}: bits (${params.bits}) must be a multiple of hashes (${params.hashes})`);
  }
  const expected = Math.ceil(params.bits / 8);
  if (payload.length !== expected) {
    throw new FormatError(
      `${where}: payload must be ${expected} bytes for ${params.bits} bits, got ${payload.length}`,
    );
  }
  const storage = new BitArray(params.bits, { bytes: payload, copy: options.copy ?? true });
  if (storage.hasPaddingBits()) throw new FormatError(`${where}: bits past the end of the filter are set`);
  return {
    shape: { bits: params.bits, hashes: params.hashes, seed },
    state: { storage, count: params.count, capacity: params.capacity, fpr: params.fpr },
  };
}
