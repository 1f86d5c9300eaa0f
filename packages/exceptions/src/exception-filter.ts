import {
  type BloomFilter,
  type ByteSource,
  type FilterFact,
  type FilterJson,
  FORMAT_VERSION,
  FormatError,
  fact,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
  type KindRecord,
  standardLayout,
} from '@bloomkit/core';
import {
  checkAllocation,
  decodeChain,
  encodeNestedParts,
  fromFilterJson,
  joinParts,
  payloadRange,
  readDeserializeOptions,
  toFilterJson,
} from '@bloomkit/core/internal';
import { keyList } from '@bloomkit/core/kit';
import {
  type CreateOptions,
  classOf,
  createFilter,
  deserializeAny,
  type ReadOptions,
} from '@bloomkit/filters';
import { ExceptionKeys, keyOfCanonical } from './exception-keys.js';
import {
  checkNested,
  decodeEntries,
  decodeExceptionsParams,
  encodeEntries,
  encodeExceptionsParams,
} from './exceptions-codec.js';

/** Kind 6 of docs/FORMAT.md: a nested filter of any other kind and its exception keys. */
export const exceptionsKind: KindRecord = {
  id: 6,
  name: 'exceptions',
  className: 'ExceptionFilter',
  params: 'wrapper',
  layout: standardLayout,
  counterWidths: [0],
};
const NAME = exceptionsKind.className;

/** Options of {@link ExceptionFilter.create}: those of the nested kind's `create`, and which kind. */
export interface ExceptionCreateOptions extends CreateOptions {
  /** The nested filter's kind, by name (`standard`, `blocked`, `counting`, …). Default `standard`. */
  readonly inner?: string;
}

/** A kind whose filters delete (counting). */
interface Deleting {
  delete(key: Key): boolean;
}

/**
 * A Bloom filter with an exception list: keys the filter answers present but that are known to be absent (its
 * false positives, confirmed by an authoritative check) are listed exactly and answered absent. The remedy of every
 * real blacklist: a crawl finds a good URL the filter flags, a lookup confirms it is good, and it goes on the list
 * so it is never blocked again.
 *
 * Contract: `has(key)` is `filter.has(key)` and not an exception. An exception is a claim that the key is not in
 * the set, so:
 * - `addException(key)` of a key the filter already answers absent changes nothing and returns false;
 * - `add(key)` removes the key from the exceptions before adding it: a key added after its exception is never
 *   hidden, and `has` never answers false for a key added since its last `addException`;
 * - counting filters: `delete(key)` of an exception is refused (returns false) — the key is known absent, and
 *   deleting a key never added would lower other keys' counters into false negatives. An exception whose key a
 *   delete of other keys made absent stays harmlessly until `prune()`, `removeException` or `add` drops it.
 *
 * Cost: the exception check runs only for keys the filter answers present, so an absent key costs one branch more
 * than the plain filter; a present key costs a second hash and one bit read (exception-keys.ts), and a hash-table
 * probe for the exceptions and 1 in 16 of the others. Memory: about 110 bytes per 40-character URL
 * exception in a process (a string in a `Set`), 4 + its UTF-8 bytes in a file (docs/FORMAT.md §3.5).
 */
export class ExceptionFilter<F extends BloomFilter = BloomFilter> implements BloomFilter {
  /** The kind's format record. */
  static readonly kind: KindRecord = exceptionsKind;
  /** The filter the exceptions apply to (used, not copied: adding to it directly bypasses the exceptions rule). */
  readonly filter: F;
  private readonly excepted: ExceptionKeys;

  private constructor(filter: F, excepted: ExceptionKeys) {
    this.filter = filter;
    this.excepted = excepted;
  }

  /**
   * An exception list over `filter` (any bloomkit filter of a kind in the table but this one), starting empty. The
   * filter is used, not copied.
   */
  static wrap<F extends BloomFilter>(filter: F): ExceptionFilter<F> {
    const where = `${NAME}.wrap`;
    const Class = typeof filter === 'object' && filter !== null ? classOf(filter) : undefined;
    if (Class === undefined) {
      throw new InvalidArgumentError(
        `${where}: filter must be a bloomkit filter of a kind in the table of @bloomkit/filters`,
      );
    }
    if (Class.kind.id === exceptionsKind.id) {
      throw new InvalidArgumentError(`${where}: filter is an ExceptionFilter already; add exceptions to it`);
    }
    const typed = typedValues(filter);
    if (typed !== undefined) throw new InvalidArgumentError(`${where}: ${typed}`);
    return new ExceptionFilter(filter, new ExceptionKeys());
  }

  /**
   * A new filter of kind `options.inner` (default `standard`) sized for `capacity` keys at `fpr`, with an empty
   * exception list. The other options go to that kind's `create`.
   */
  static create(capacity: number, fpr: number, options?: ExceptionCreateOptions): ExceptionFilter {
    const { inner = 'standard', ...rest } = options ?? {};
    if (inner === exceptionsKind.name) {
      throw new InvalidArgumentError(
        `${NAME}.create: inner must be a kind other than ${exceptionsKind.name}`,
      );
    }
    return ExceptionFilter.wrap(createFilter(inner, { ...rest, capacity, fpr }));
  }

  /**
   * A filter of kind `options.inner` (default `standard`) holding `keys`, sized for as many keys as there are (at
   * least 1) at `fpr`, with an empty exception list: `create` then `addAll`. A bad key throws before anything is
   * built.
   */
  static from(keys: Iterable<Key>, fpr: number, options?: ExceptionCreateOptions): ExceptionFilter {
    const list = keyList(`${NAME}.from`, keys);
    const filter = ExceptionFilter.create(Math.max(1, list.length), fpr, options);
    filter.addAll(list);
    return filter;
  }

  /**
   * Reads a filter written by {@link serialize}: the outer envelope, the nested filter (by its own kind's
   * `deserialize`, with `options`: with `copy: false` it reads its payload in place) and the exception list, sorted
   * and without repeats, are checked before use. The exceptions are always read into memory.
   */
  static deserialize(bytes: ByteSource, options?: ReadOptions): ExceptionFilter {
    const where = `${NAME}.deserialize`;
    const read = readDeserializeOptions(where, options);
    if (options?.maxBytes !== undefined) checkAllocation(where, 0, options.maxBytes);
    const envelope = decodeChain(exceptionsKind, bytes, { verifyChecksum: read.verifyChecksum, where });
    const params = decodeExceptionsParams(envelope.params, envelope.payloadLength, where);
    const nested = payloadRange(envelope, 0, params.filterBytes);
    checkNested(exceptionsKind, nested, envelope, where);
    const maxBytes = options?.maxBytes === undefined ? {} : { maxBytes: options.maxBytes };
    // The nested filter's own options: a time window's clock goes with it.
    const clock = options?.clock === undefined ? {} : { clock: options.clock };
    const { filter } = deserializeAny(nested, { ...read, ...maxBytes, ...clock });
    const typed = typedValues(filter);
    if (typed !== undefined) throw new FormatError(`${where}: ${typed}`);
    const rest = envelope.payloadLength - params.filterBytes;
    const entries = joinParts(exceptionsKind, payloadRange(envelope, params.filterBytes, rest));
    return new ExceptionFilter(filter, decodeEntries(entries, params.exceptionCount, where));
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(json: unknown, options?: ReadOptions): ExceptionFilter {
    return ExceptionFilter.deserialize(
      fromFilterJson(`${NAME}.fromJSON`, json, exceptionsKind.name),
      options,
    );
  }

  /** m of the nested filter. */
  get bits(): number {
    return this.filter.bits;
  }
  /** k of the nested filter. */
  get hashes(): number {
    return this.filter.hashes;
  }
  get seed(): number {
    return this.filter.seed;
  }
  /** The nested filter's count: adds that changed it (an add that only lifted an exception does not count). */
  get count(): number {
    return this.filter.count;
  }
  get capacity(): number | undefined {
    return this.filter.capacity;
  }
  get fpr(): number | undefined {
    return this.filter.fpr;
  }
  /** Exceptions held now. */
  get exceptionCount(): number {
    return this.excepted.size;
  }
  /** Bytes the exceptions take in the file: 4 + each key's UTF-8 bytes. */
  get exceptionBytes(): number {
    return this.excepted.encodedBytes;
  }
  /**
   * The nested filter's kind, the exceptions and their bytes in the file, then the nested filter's own facts (its
   * `facts()`, when its kind has them), for an inspector (`bloomkit info`, the sizing page).
   */
  facts(): FilterFact[] {
    const own = (this.filter as { facts?: () => FilterFact[] }).facts;
    const count = this.exceptionCount;
    return [
      fact('nestedKind', 'filter kind', classOf(this.filter)?.kind.name ?? 'unknown'),
      fact(
        'exceptionCount',
        'exceptions',
        count,
        `${count.toLocaleString('en-US')} (${this.exceptionBytes.toLocaleString('en-US')} bytes in the file)`,
      ),
      fact('exceptionBytes', 'exception bytes', this.exceptionBytes),
      ...(typeof own === 'function' ? own.call(this.filter) : []),
    ];
  }
  /** True when the nested filter deletes (counting), so {@link delete} applies. */
  get deletes(): boolean {
    return typeof (this.filter as Partial<Deleting>).delete === 'function';
  }

  /**
   * Adds `key` and lifts its exception, if any; true when `has(key)` was false before (the filter changed, or the
   * key was hidden by an exception).
   */
  add(key: Key): boolean {
    const lifted = this.excepted.delete(key);
    return this.filter.add(key) || lifted;
  }

  /** True when the filter answers present and the key is not an exception. */
  has(key: Key): boolean {
    return this.filter.has(key) && !this.excepted.has(key);
  }

  /** {@link add} for each key; how many returned true. */
  addAll(keys: Iterable<Key>): number {
    if (this.excepted.size === 0) return this.filter.addAll(keys);
    let added = 0;
    for (const key of keyList(`${NAME}.addAll`, keys)) if (this.add(key)) added++;
    return added;
  }

  /** {@link has} for each key: the filter's batch lookup, then the exception check for the keys it found. */
  hasMany(keys: readonly Key[]): boolean[] {
    const out = this.filter.hasMany(keys);
    if (this.excepted.size === 0) return out;
    for (let i = 0; i < out.length; i++) if (out[i] && this.excepted.has(keys[i]!)) out[i] = false;
    return out;
  }

  /**
   * Records that `key` is absent although the filter answers present (a false positive confirmed elsewhere): `has`
   * answers false for it until it is added or its exception removed. True when that changed `has`; false (and
   * nothing recorded) when the filter answers absent already or the key is an exception already.
   */
  addException(key: Key): boolean {
    if (!this.filter.has(key)) return false;
    return this.excepted.add(key);
  }

  /** Removes `key`'s exception; true when it had one. */
  removeException(key: Key): boolean {
    return this.excepted.delete(key);
  }

  /** True when `key` is an exception. */
  isException(key: Key): boolean {
    return this.excepted.has(key);
  }

  /** The exception keys, in no particular order: text keys as strings, keys of bytes that are not UTF-8 as bytes. */
  *exceptions(): IterableIterator<Key> {
    for (const canonical of this.excepted.canonical()) yield keyOfCanonical(canonical);
  }

  /**
   * Drops the exceptions the filter no longer answers present for (after deletes from a counting filter): they
   * change no answer. Returns how many were dropped.
   */
  prune(): number {
    let dropped = 0;
    for (const canonical of [...this.excepted.canonical()]) {
      if (!this.filter.has(keyOfCanonical(canonical))) {
        this.excepted.deleteCanonical(canonical);
        dropped++;
      }
    }
    return dropped;
  }

  /**
   * Counting filters: removes one occurrence of `key` from the filter, as its `delete`; refused (false, nothing
   * changed) for an exception, which is known absent. InvalidArgumentError for a filter that does not delete.
   */
  delete(key: Key): boolean {
    if (!this.deletes) {
      throw new InvalidArgumentError(
        `${NAME}.delete: the nested filter is a ${classOf(this.filter)?.kind.name ?? 'filter'} filter; only counting filters delete`,
      );
    }
    if (this.excepted.has(key)) return false;
    return (this.filter as unknown as Deleting).delete(key);
  }

  fillRatio(): number {
    return this.filter.fillRatio();
  }
  estimatedCount(): number {
    return this.filter.estimatedCount();
  }
  /** The nested filter's rate now: an upper bound, since exceptions only turn answers to absent. */
  expectedFpr(): number {
    return this.filter.expectedFpr();
  }

  /**
   * The filters' union, with the exceptions that stay true of it: an exception of one side is kept when the other
   * side's filter answers absent for it or lists it too (then no side added it). IncompatibleFiltersError unless
   * the nested filters can be united.
   */
  union(other: this): this {
    const theirs = checkOther(`${NAME}.union`, other);
    const filter = (this.filter as BloomFilter).union(theirs.filter as never) as F;
    const excepted = new ExceptionKeys();
    const keep = (mine: ExceptionFilter, their: ExceptionFilter) => {
      for (const canonical of mine.excepted.canonical()) {
        if (their.excepted.hasCanonical(canonical) || !their.filter.has(keyOfCanonical(canonical))) {
          excepted.addCanonical(canonical);
        }
      }
    };
    keep(this, theirs);
    keep(theirs, this);
    return new ExceptionFilter(filter, excepted) as this;
  }

  /**
   * The filters' intersection, with the exceptions of both sides that it still answers present for (a key absent
   * from either side is absent from both).
   */
  intersect(other: this): this {
    const theirs = checkOther(`${NAME}.intersect`, other);
    const filter = (this.filter as BloomFilter).intersect(theirs.filter as never) as F;
    const excepted = new ExceptionKeys();
    for (const side of [this, theirs]) {
      for (const canonical of side.excepted.canonical()) {
        if (filter.has(keyOfCanonical(canonical))) excepted.addCanonical(canonical);
      }
    }
    return new ExceptionFilter(filter, excepted) as this;
  }

  clone(): this {
    return new ExceptionFilter((this.filter as BloomFilter).clone() as F, this.excepted.clone()) as this;
  }

  /** Removes every key and every exception. */
  clear(): void {
    this.filter.clear();
    this.excepted.clear();
  }

  /** True when the nested filters are equal and the exceptions are the same keys. */
  equals(other: this): boolean {
    return (
      other instanceof ExceptionFilter &&
      classOf(other.filter) === classOf(this.filter) &&
      (this.filter as BloomFilter).equals(other.filter as never) &&
      this.excepted.equals(other.excepted)
    );
  }

  serialize(): Uint8Array {
    return joinParts(exceptionsKind, this.serializeParts());
  }

  /** The file as parts: the header, the nested filter's parts (views of its storage), the sorted exceptions. */
  serializeParts(): Uint8Array[] {
    const nested = this.filter.serializeParts();
    const filterBytes = nested.reduce((sum, part) => sum + part.length, 0);
    return encodeNestedParts(
      exceptionsKind,
      this.filter.seed,
      encodeExceptionsParams({ exceptionCount: this.excepted.size, filterBytes }),
      [...nested, encodeEntries(this.excepted)],
    );
  }

  toJSON(): FilterJson {
    return toFilterJson(`${NAME}.toJSON`, exceptionsKind.name, FORMAT_VERSION, this.serialize());
  }
}

/**
 * Why `filter` cannot take exceptions, or undefined when it can. Exception keys are bytes (docs/FORMAT.md §3.5), so
 * a filter whose keys are typed values, not bytes, has none: a split-block filter (kind 8) of a Parquet column of a
 * fixed-width type (INT32, DOUBLE, …), whose `type` names it. Its byte columns (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY)
 * take strings and bytes as every other kind does.
 */
function typedValues(filter: BloomFilter): string | undefined {
  const type = (filter as { readonly type?: unknown }).type;
  if (typeof type !== 'string' || type === 'BYTE_ARRAY' || type === 'FIXED_LEN_BYTE_ARRAY') return undefined;
  return `the filter holds values of a Parquet ${type} column, not keys of bytes; exceptions take byte columns only (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY)`;
}

/** The other side of a union or intersection, checked to be an ExceptionFilter. */
function checkOther(where: string, other: unknown): ExceptionFilter {
  if (!(other instanceof ExceptionFilter)) {
    throw new IncompatibleFiltersError(`${where}: the other filter must be an ExceptionFilter too`);
  }
  return other;
}
