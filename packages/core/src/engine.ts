import { IncompatibleFiltersError, InvalidArgumentError } from './errors.js';
import type { BloomFilter } from './filter.js';
import { FORMAT_VERSION } from './format.js';
import { type FilterJson, toFilterJson } from './json.js';
import { describe } from './key.js';
import type { FilterShapeOptions, FilterState } from './shape.js';
import { encodeSingleFilter, encodeSingleFilterParts, rewriteInPlace } from './single-filter-codec.js';
import { SlotEngine } from './slot-engine.js';
import type { FilterStore } from './storage.js';
import { handOut } from './wasm/kernel-arena.js';

/**
 * The one engine behind every single-filter kind (the kinds whose records say `params: 'single'`): a filter's
 * state and slots (slot-engine.ts: add and has, one key or a batch), and here what it is as a set and as bytes:
 * fill and estimates, union, intersect, clone, equals, serialize. The kind packages add only what is theirs:
 * sizing by `create`, reading their bytes, and (counting) delete.
 *
 * Contract: `has` may answer true for a key never added (a false positive, at about the rate the layout's formula
 * gives for the keys added) but never answers false for a key that was added. Every operation either completes or
 * throws before changing anything.
 */
export class BloomEngine<S extends FilterStore<S>> extends SlotEngine<S> implements BloomFilter {
  fillRatio(): number {
    return this.store.setCount() / this.bits;
  }

  /** Estimated number of distinct keys added, from the fill (the layout's estimator). */
  estimatedCount(): number {
    return this.kind.layout.estimateCount(this.store.setCount(), this.bits, this.hashes);
  }

  /** The false-positive rate now: (fill ratio)^k, the chance that k positions all hit set slots. */
  expectedFpr(): number {
    return this.fillRatio() ** this.hashes;
  }

  /**
   * A new filter holding the keys of both: bit-identical to one filter built from both key sets (bits: OR;
   * counters: saturating sum, so multiplicities add). Its `count` is the fill estimate, because how many adds
   * would have returned true is not known.
   */
  union(other: this): this {
    this.checkCompatible(other, 'union');
    const store = this.store.clone();
    store.unionWith(other.store);
    return this.sibling(store, undefined);
  }

  /**
   * A new filter that finds every key present in both (bits: AND; counters: minimum). Its false-positive rate is at
   * most either source's, and may exceed that of a filter built from the true intersection. For counting filters
   * its counters are not the counts of any multiset, so do not delete from it. `count` is the fill estimate.
   */
  intersect(other: this): this {
    this.checkCompatible(other, 'intersect');
    const store = this.store.clone();
    store.intersectWith(other.store);
    return this.sibling(store, undefined);
  }

  /** An independent copy. */
  clone(): this {
    return this.sibling(this.store.clone(), this.counted);
  }

  /** Removes every key. */
  clear(): void {
    this.store.clear();
    this.counted = 0;
  }

  /** Same kind, m, k, seed, counter width and contents (count, capacity and fpr are not compared). */
  equals(other: this): boolean {
    return this.sameShape(other) && this.store.equals(other.store);
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md §3.1). */
  serialize(): Uint8Array {
    return encodeSingleFilter(this.kind, this, this.store, this);
  }

  /** The JSON form (see {@link FilterJson}): the file in base64. */
  toJSON(): FilterJson {
    return toFilterJson(`${this.kind.className}.toJSON`, this.kind.name, FORMAT_VERSION, this.serialize());
  }

  /**
   * For a filter read in place (`deserialize(bytes, { copy: false })` of one array): adds and clears change the
   * payload inside `bytes`, but not its recorded count or its checksum, so `bytes` would then fail to load as a
   * corrupt file. This rewrites both, making `bytes` again a valid file of this filter, and returns them. O(m) (the
   * checksum covers the payload): call it before the bytes are stored or sent, not after every add. Throws an
   * InvalidArgumentError for a filter that does not work in place.
   */
  syncBytes(): Uint8Array {
    if (this.inPlace === undefined) {
      throw new InvalidArgumentError(
        `${this.kind.className}.syncBytes: this filter does not work in place (it was not read with copy: false from one array); use serialize()`,
      );
    }
    rewriteInPlace(this.kind, this, this.store, this, this.inPlace);
    return this.inPlace;
  }

  /**
   * The same bytes as {@link serialize} as parts; the payload parts are views of this filter's storage (copies where
   * it shares a kernel memory, as {@link payloadParts}).
   */
  serializeParts(): Uint8Array[] {
    return encodeSingleFilterParts(this.kind, this, this.store, this);
  }

  /**
   * The payload of the serialized form (docs/FORMAT.md §3.1–3.3: the bits or counters, between the params and the
   * checksum) as views of this filter's storage, one per page, not copies: the bytes a store that keeps only the
   * payload (such as `@bloomkit/redis`) writes. Read them before the filter next changes. Storage of 256 KiB to
   * 1 MiB that shares a kernel memory with other filters is copied instead, so that every view derived from a part
   * stays valid after the filter is gone (core's kernel-arena.ts).
   */
  payloadParts(): Uint8Array[] {
    return this.store.pages.map(handOut);
  }

  /** The shape as the kind's constructor takes it, counter width included. */
  protected shapeOptions(): FilterShapeOptions & { counterBits?: number } {
    const counterBits = this.store.counterBits;
    return counterBits === 0
      ? { bits: this.bits, hashes: this.hashes, seed: this.seed }
      : { bits: this.bits, hashes: this.hashes, seed: this.seed, counterBits };
  }

  /**
   * A filter of this class with this shape over `store`; `count` undefined means the fill estimate (for union and
   * intersect, where how many adds would have returned true is not known).
   */
  private sibling(store: S, count: number | undefined): this {
    const Kind = this.constructor as new (options: FilterShapeOptions, state: FilterState<S>) => this;
    const filter = new Kind(this.shapeOptions(), { storage: store, capacity: this.capacity, fpr: this.fpr });
    if (count !== undefined) filter.counted = count;
    else {
      const estimate = filter.estimatedCount();
      filter.counted = Number.isFinite(estimate) ? Math.round(estimate) : this.bits;
    }
    return filter;
  }

  /** Throws {@link IncompatibleFiltersError} unless `other` is the same kind with the same m, k, seed and width. */
  private checkCompatible(other: this, operation: string): void {
    const where = `${this.kind.className}.${operation}`;
    if (!(other instanceof BloomEngine) || other.kind !== this.kind) {
      throw new IncompatibleFiltersError(
        `${where}: other must be a ${this.kind.className}, got ${describe(other)}`,
      );
    }
    const mismatch =
      other.bits !== this.bits
        ? `bits ${this.bits} vs ${other.bits}`
        : other.hashes !== this.hashes
          ? `hashes ${this.hashes} vs ${other.hashes}`
          : other.seed !== this.seed
            ? `seed ${this.seed} vs ${other.seed}`
            : other.store.counterBits !== this.store.counterBits
              ? `counterBits ${this.store.counterBits} vs ${other.store.counterBits}`
              : undefined;
    if (mismatch !== undefined) {
      throw new IncompatibleFiltersError(
        `${where}: filters must have the same bits, hashes, seed; ${mismatch}`,
      );
    }
  }

  private sameShape(other: this): boolean {
    return (
      other instanceof BloomEngine &&
      other.kind === this.kind &&
      other.bits === this.bits &&
      other.hashes === this.hashes &&
      other.seed === this.seed &&
      other.store.counterBits === this.store.counterBits
    );
  }
}
