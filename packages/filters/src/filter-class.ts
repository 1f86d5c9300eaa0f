import type { BloomFilter, ByteSource, DeserializeOptions, KindRecord, SeedOption } from '@bloomkit/core';

/** Options every kind's `create` takes; `counterBits` only where the kind has counters. */
export interface CreateOptions extends SeedOption {
  /** Counter width of a counting kind (its record's `counterWidths`). */
  readonly counterBits?: number;
  /** A window kind's time window, in ms (`params: 'ring'`): every key of the last `duration` is kept. */
  readonly duration?: number;
  /**
   * The Parquet column's physical type of a split-block kind (`params: 'split-block'`): `BYTE_ARRAY` (default),
   * `INT32`, `INT64`, `FLOAT`, `DOUBLE`, `BOOLEAN` or `FIXED_LEN_BYTE_ARRAY`; it says how values are hashed.
   */
  readonly type?: string | undefined;
}

/** Options of {@link FilterClass.deserialize}: `maxBytes` bounds what a chained kind may grow to after reading. */
export type ReadOptions = DeserializeOptions &
  Pick<SeedOption, 'maxBytes'> & {
    /** A time window's clock (ms since the epoch; default `Date.now`), also nested in an exceptions filter; other kinds have none. */
    readonly clock?: (() => number) | undefined;
  };

/**
 * One kind as the table holds it: the kind's class, with its format record and its statics. Every bloomkit filter
 * class is one (`StandardBloomFilter`, `ScalableBloomFilter`, …).
 *
 * A kind whose record says `params: 'single'` is also constructible from an explicit shape,
 * `new Class({ bits, hashes, seed?, counterBits?, maxBytes? }, state?)` ({@link SingleFilterClass}); a chained
 * kind (`params: 'chain'`) is sized only by `create`.
 */
export interface FilterClass<F extends BloomFilter = BloomFilter> {
  /** The kind's format record: id, name, class name, layout, counter widths. */
  readonly kind: KindRecord;
  readonly prototype: F;
  /** A filter sized so that `capacity` keys give a false-positive rate of at most `fpr`. */
  create(capacity: number, fpr: number, options?: CreateOptions): F;
  /** Reads the kind's file (docs/FORMAT.md); bytes of another kind or corrupt bytes are a FormatError. */
  deserialize(bytes: ByteSource, options?: ReadOptions): F;
  /** Reads the JSON form (`toJSON`), as a string or a parsed object. */
  fromJSON(json: unknown, options?: ReadOptions): F;
}

/** An explicit shape: m bits (or counters) and k, with the options of `create`. */
export interface ExplicitShape extends CreateOptions {
  /** m: bits, or counters for a counting kind. */
  readonly bits: number;
  /** k: positions per key. */
  readonly hashes: number;
}

/** The constructor of a single (not chained) kind: a shape, and optionally existing storage and counts. */
export interface SingleFilterClass<F extends BloomFilter = BloomFilter> extends FilterClass<F> {
  // biome-ignore lint/suspicious/noExplicitAny: the storage type (bits or counters) is the kind's own.
  new (shape: ExplicitShape, state?: any): F;
}

/** True when `Class` is a single kind, so `new Class(shape, state)` builds one (see {@link FilterClass}). */
export function isSingleKind<F extends BloomFilter>(Class: FilterClass<F>): Class is SingleFilterClass<F> {
  return Class.kind.params === 'single';
}
