import { InvalidArgumentError } from './errors.js';
import { checkAllocation, readOptions, resolveSeed, type SeedOption } from './filter.js';
import type { KindRecord } from './kinds.js';
import { MAX_HASHES } from './params.js';
import { chooseShape } from './sizing.js';
import { checkInteger, checkOpenInterval } from './validate.js';

/** The explicit shape of a filter: m, k and the seed. */
export interface FilterShapeOptions extends SeedOption {
  /** m: an integer in [1, 2^48]. The partitioned layout rounds it up to a multiple of k. */
  readonly bits: number;
  /** k: an integer in [1, 64]. */
  readonly hashes: number;
}

/** A validated shape, seed resolved. */
export interface ResolvedShape {
  /** m: an integer in [1, the layout's maxBits], a multiple of the layout's bits unit. */
  readonly bits: number;
  /** k: an integer in [1, 64]. */
  readonly hashes: number;
  /** The seed as an unsigned 32-bit integer ('random' already drawn). */
  readonly seed: number;
}

/** What a filter carries beyond its shape, when it is rebuilt (deserialize, clone, union) rather than new. */
export interface FilterState<S> {
  /** Existing storage of exactly the filter's size. */
  readonly storage?: S | undefined;
  /** Adds that returned true, an integer in [0, 2^53 − 1]. Default 0. */
  readonly count?: number | undefined;
  /** Set by `create`: the capacity (an integer ≥ 1) and target rate (in (0, 1)) it was sized for; both or none. */
  readonly capacity?: number | undefined;
  /** The target false-positive rate `create` sized it for, with `capacity`. */
  readonly fpr?: number | undefined;
  /**
   * The file the storage is a view of, when a filter is read in place (`deserialize(bytes, { copy: false })`):
   * what {@link BloomEngine.syncBytes} rewrites.
   */
  readonly inPlace?: Uint8Array | undefined;
}

/** A validated state: count, capacity and fpr checked. */
export interface ResolvedState<S> {
  readonly storage: S | undefined;
  readonly count: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
  readonly inPlace: Uint8Array | undefined;
}

/**
 * Validates `{ bits, hashes, seed }` for `kind`; rounds m up to a multiple of the layout's unit. When the caller is
 * about to allocate the store (`allocating`, with the bits per slot), also checks its size against `maxBytes`.
 */
export function resolveShape(
  kind: KindRecord,
  options: FilterShapeOptions,
  allocating?: { readonly bitsPerSlot: number },
): ResolvedShape {
  const where = `new ${kind.className}`;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `${where}: options must be an object { bits, hashes, seed? }, got ${options}`,
    );
  }
  const hashes = checkInteger(where, 'hashes', options.hashes, 1, MAX_HASHES);
  const unit = kind.layout.bitsUnit(hashes);
  const max = kind.layout.maxBits;
  const bits = Math.ceil(checkInteger(where, 'bits', options.bits, 1, max) / unit) * unit;
  if (bits > max) {
    throw new InvalidArgumentError(`${where}: bits rounded up to a multiple of ${unit} exceeds ${max}`);
  }
  if (allocating !== undefined) {
    checkAllocation(where, Math.ceil((bits * allocating.bitsPerSlot) / 8), options.maxBytes);
  }
  return { bits, hashes, seed: resolveSeed(where, options.seed) };
}

/** Validates a {@link FilterState}: null and non-objects are refused, and each field is range-checked. */
export function resolveState<S>(kind: KindRecord, state: FilterState<S> | undefined): ResolvedState<S> {
  const where = `new ${kind.className}`;
  const s = readOptions(where, state, 'state');
  const count = checkInteger(where, 'state.count', s.count ?? 0, 0, Number.MAX_SAFE_INTEGER);
  if ((s.capacity === undefined) !== (s.fpr === undefined)) {
    throw new InvalidArgumentError(
      `${where}: state.capacity and state.fpr must be given together or not at all`,
    );
  }
  if (s.capacity !== undefined) {
    checkInteger(where, 'state.capacity', s.capacity, 1, Number.MAX_SAFE_INTEGER);
    checkOpenInterval(where, 'state.fpr', s.fpr, 0, 1);
  }
  return { storage: s.storage, count, capacity: s.capacity, fpr: s.fpr, inPlace: s.inPlace };
}

/**
 * The shape `create(capacity, fpr)` builds: the smallest m, with its best k, whose predicted rate at `capacity`
 * keys is at most `fpr` under the kind's layout (see {@link chooseShape}).
 */
export function planShape(
  kind: KindRecord,
  capacity: number,
  fpr: number,
  options: SeedOption | undefined,
  bitsPerSlot = 1,
): ResolvedShape & { capacity: number; fpr: number; maxBytes: number | undefined } {
  const where = `${kind.className}.create`;
  const o = readOptions(where, options);
  const shape = chooseShape(capacity, fpr, kind.layout, where, kind.layout.maxBits);
  checkAllocation(where, Math.ceil((shape.bits * bitsPerSlot) / 8), o.maxBytes);
  return {
    bits: shape.bits,
    hashes: shape.hashes,
    seed: resolveSeed(where, o.seed),
    capacity,
    fpr,
    maxBytes: o.maxBytes,
  };
}
