import {
  type ByteSource,
  type DeserializeOptions,
  type FilterFact,
  type FilterJson,
  FORMAT_VERSION,
  IncompatibleFiltersError,
  type Key,
  type KindRecord,
} from '@bloomkit/core';
import {
  checkAllocation,
  encodeNestedParts,
  fromFilterJson,
  handOut,
  joinParts,
  resolveSeed,
  toFilterJson,
} from '@bloomkit/core/internal';
import {
  batchHashes,
  checkAttached,
  checkHashAt,
  checkHashBatch,
  hashBatch,
  hashInto,
  keyList,
} from '@bloomkit/core/kit';
import { CapacityError } from './capacity-error.js';
import { CuckooAdder } from './cuckoo-adder.js';
import { type CuckooParams, cuckooKind, writeParams } from './cuckoo-codec.js';
import { cuckooFacts } from './cuckoo-facts.js';
import { readCuckooFile, syncCuckooFile } from './cuckoo-file.js';
import { CuckooProbe } from './cuckoo-probe.js';
import { type BucketSize, type CuckooCreateOptions, MAX_KICKS, planShape, rateAt } from './cuckoo-shape.js';
import { CuckooWalk } from './cuckoo-walk.js';
import { SlotTable } from './slot-table.js';

/** `hasMany`'s answers of one hashed batch, before they become booleans: grown to the largest batch seen. */
let batchAnswers = new Uint8Array(1024);

const NAME = 'CuckooFilter';
/** The single-hash entries' names for their refusals, made once (not a string per call). */
const ADD_HASH = `${NAME}.addHash`;
const HAS_HASH = `${NAME}.hasHash`;
const DELETE_HASH = `${NAME}.deleteHash`;

/**
 * A cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", CoNEXT
 * 2014): a key is a fingerprint of f bits in one of two buckets of b slots, so keys can be deleted at about f / 0.9
 * bits a key (11.1 at 1%, 14.4 at 0.1%), a third of a 4-bit counting filter's memory, at any capacity (the bucket
 * count is never rounded to a power of two: docs/FORMAT.md §3.9's alternate-bucket rule works for any).
 * - `add(key)` stores one more copy of the key's fingerprint (as RedisBloom's `CF.ADD`), true when the key was
 *   absent before. When no room is found it throws a {@link CapacityError} and **nothing changed**: every key added
 *   before is still present (no fingerprint is dropped on the way, the trap of most implementations).
 * - `delete(key)` removes one copy, false (nothing changed) when none is found. Deleting a key never added can
 *   remove the copy of a key that shares its fingerprint and a bucket (at about the false-positive rate).
 * - `countOf(key)`: copies of the key's fingerprint in its buckets, never below the times it was added and not
 *   deleted (as `CF.COUNT`).
 * A key never added is present at about 2·b·load / (2^f − 1) ({@link expectedFpr}). Serialized form: kind 10 of
 * docs/FORMAT.md (§3.9); `cuckooFromTable` builds one from a table's bytes. Single-key calls allocate nothing.
 */
export class CuckooFilter {
  /** Kind 10's format record. */
  static readonly kind: KindRecord = cuckooKind;

  /** The 32-bit seed of MurmurHash3; filters combine only with equal seeds. */
  readonly seed: number;
  /** f: bits a fingerprint. */
  readonly fingerprintBits: number;
  /** b: slots a bucket. */
  readonly bucketSize: BucketSize;
  /** n: buckets. */
  readonly buckets: number;
  /** The keys the table was sized for. */
  readonly capacity: number;
  /** The rate targeted at capacity. */
  readonly fpr: number;
  /** The longest walk of an add before it gives up. */
  readonly maxKicks: number;
  /** Buckets a key touches (the Bloom filters' k): 2. */
  readonly hashes = 2;
  private held: number;
  /** The params it was made or read with (their `held` is stale: see {@link params}). */
  private readonly made: CuckooParams;
  private readonly table: SlotTable;
  private readonly walk: CuckooWalk;
  private readonly probe: CuckooProbe;
  private readonly adder: CuckooAdder;
  private readonly hash = new Int32Array(4);
  /** The file the table is a view of, when read in place (see {@link syncBytes}). */
  private readonly inPlace: Uint8Array | undefined;

  private constructor(params: CuckooParams, seed: number, table: SlotTable, inPlace?: Uint8Array) {
    this.seed = seed;
    this.fingerprintBits = params.fingerprintBits;
    this.bucketSize = params.bucketSize;
    this.buckets = params.buckets;
    this.capacity = params.capacity;
    this.fpr = params.fpr;
    this.maxKicks = params.maxKicks;
    this.held = params.held;
    this.made = params;
    this.table = table;
    this.walk = new CuckooWalk(table, params.bucketSize, params.buckets, params.maxKicks);
    this.probe = new CuckooProbe(table, params.buckets, params.bucketSize);
    this.adder = new CuckooAdder(
      table,
      this.walk,
      this.probe,
      params.buckets,
      params.bucketSize,
      params.capacity,
      `${NAME}.add`,
    );
    this.inPlace = inPlace;
  }

  /**
   * An empty filter for `capacity` keys at rate `fpr` (docs/FORMAT.md §3.9, "Sizing"): ⌈capacity / (b · load)⌉
   * buckets, load 0.8, 0.9 or 0.93 for buckets of 2, 4 or 8 slots, and the fewest fingerprint bits that give `fpr`
   * at that load. Refuses a table past `maxBytes` (default 4 GiB) before allocating it.
   */
  static create(capacity: number, fpr: number, options?: CuckooCreateOptions): CuckooFilter {
    const where = `${NAME}.create`;
    const shape = planShape(where, capacity, fpr, options?.bucketSize);
    const seed = resolveSeed(where, options?.seed);
    const slots = shape.buckets * shape.bucketSize;
    checkAllocation(where, SlotTable.payloadBytesOf(slots, shape.fingerprintBits), options?.maxBytes);
    const params: CuckooParams = { ...shape, maxKicks: MAX_KICKS, capacity, fpr, held: 0 };
    return new CuckooFilter(params, seed, SlotTable.empty(slots, shape.fingerprintBits));
  }

  /** A filter sized for the keys (at least 1) holding a copy of each: `create(max(1, keys), fpr)` then `addAll`. */
  static from(keys: Iterable<Key>, fpr: number, options?: CuckooCreateOptions): CuckooFilter {
    const list = keyList(`${NAME}.from`, keys);
    const filter = CuckooFilter.create(Math.max(1, list.length), fpr, options);
    filter.addAll(list);
    return filter;
  }

  /** Fingerprints held: every copy of every key added and not deleted. */
  get size(): number {
    return this.held;
  }

  /** The shared filter API's count: {@link size}. */
  get count(): number {
    return this.held;
  }

  /** m: bits of the table, n · b · f. */
  get bits(): number {
    return this.table.slots * this.fingerprintBits;
  }

  /** The table's bits over its capacity: ≈ f / load at capacity. */
  get bitsPerKey(): number {
    return this.bits / this.capacity;
  }

  /** The fraction of slots that hold a fingerprint. */
  get loadFactor(): number {
    return this.held / this.table.slots;
  }

  /** {@link loadFactor}, under the shared filter API's name. */
  fillRatio(): number {
    return this.loadFactor;
  }

  /** The fingerprints held ({@link size}): a cuckoo filter counts exactly. */
  estimatedCount(): number {
    return this.held;
  }

  /** The rate now: 1 − (1 − 1/(2^f − 1))^(2·b·load) (cuckoo-shape.ts, `rateAt`). */
  expectedFpr(): number {
    return rateAt(this, this.loadFactor);
  }

  /** Adds one copy of `key`; true when it was absent before. CapacityError, nothing changed, when no room is found. */
  add(key: Key): boolean {
    hashInto(key, this.seed, this.hash, `${NAME}.add`);
    return this.addOne(this.hash, 0);
  }

  /** True when `key` may be in the filter; false when it certainly is not. */
  has(key: Key): boolean {
    hashInto(key, this.seed, this.hash, `${NAME}.has`);
    return this.hasOne(this.hash, 0);
  }

  /** Removes one copy of `key`; false, nothing changed, when its fingerprint is in neither bucket. */
  delete(key: Key): boolean {
    hashInto(key, this.seed, this.hash, `${NAME}.delete`);
    return this.deleteOne(this.hash, 0);
  }

  /** Copies of `key`'s fingerprint in its two buckets: at least the copies added and not deleted. */
  countOf(key: Key): number {
    hashInto(key, this.seed, this.hash, `${NAME}.countOf`);
    checkAttached(NAME, this.table.bytes);
    return this.probe.copiesOf(this.hash, 0);
  }

  /** `add` for a key already hashed with this filter's seed (h1..h4 at hash[at .. at + 3], as `hashInto` writes). */
  addHash(hash: Int32Array, at = 0): boolean {
    checkHashAt(ADD_HASH, hash, at);
    return this.addOne(hash, at);
  }

  private addOne(hash: Int32Array, at: number): boolean {
    checkAttached(NAME, this.table.bytes);
    const fresh = this.adder.one(hash, at);
    this.held++;
    return fresh;
  }

  /** `has` for a key already hashed with this filter's seed. */
  hasHash(hash: Int32Array, at = 0): boolean {
    checkHashAt(HAS_HASH, hash, at);
    return this.hasOne(hash, at);
  }

  private hasOne(hash: Int32Array, at: number): boolean {
    checkAttached(NAME, this.table.bytes);
    return this.probe.mayHold(hash, at);
  }

  /** `delete` for a key already hashed with this filter's seed. */
  deleteHash(hash: Int32Array, at = 0): boolean {
    checkHashAt(DELETE_HASH, hash, at);
    return this.deleteOne(hash, at);
  }

  private deleteOne(hash: Int32Array, at: number): boolean {
    checkAttached(NAME, this.table.bytes);
    const slot = this.probe.slotOf(hash, at);
    if (slot < 0) return false;
    this.table.set(slot, 0);
    this.held--;
    return true;
  }

  /**
   * Adds each key in order (a copy each, as `add`); returns how many were absent before their add. Whole or
   * nothing: the keys are all checked first, and a CapacityError takes back every key of the call.
   */
  addAll(keys: Iterable<Key>): number {
    checkAttached(NAME, this.table.bytes);
    const where = `${NAME}.addAll`;
    const list = keyList(where, keys);
    this.adder.begin();
    let fresh = 0;
    try {
      for (let start = 0; start < list.length; ) {
        const count = hashBatch(list, start, this.seed, where);
        fresh += this.adder.add(batchHashes(), count, undefined);
        start += count;
      }
    } catch (error) {
      this.adder.undo();
      throw error;
    } finally {
      this.adder.end();
    }
    this.held += list.length;
    return fresh;
  }

  /**
   * `addHash` for a batch of hashed keys (key j's h1..h4 at hashes[4j .. 4j + 3], j < count): `answers[j]` 1 when
   * key j was absent before; returns how many were. Whole or nothing, as {@link addAll}.
   */
  addHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    checkAttached(NAME, this.table.bytes);
    checkHashBatch(`${NAME}.addHashes`, hashes, count, answers, false);
    const fresh = this.adder.run(hashes, count, answers);
    this.held += count;
    return fresh;
  }

  /** `has` of each key, hashed a batch at a time (in WebAssembly where it loads). */
  hasMany(keys: readonly Key[]): boolean[] {
    checkAttached(NAME, this.table.bytes);
    const where = `${NAME}.hasMany`;
    const list = keyList(where, keys);
    const out = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, where);
      if (batchAnswers.length < count) batchAnswers = new Uint8Array(count);
      const answers = batchAnswers;
      this.probe.run(batchHashes(), count, answers);
      for (let j = 0; j < count; j++) out[start + j] = answers[j] === 1;
      start += count;
    }
    return out;
  }

  /** `hasHash` for a batch of hashed keys: `answers[j]` 1 when key j may be in. */
  hasHashes(hashes: Int32Array, count: number, answers: Uint8Array): void {
    checkAttached(NAME, this.table.bytes);
    checkHashBatch(`${NAME}.hasHashes`, hashes, count, answers, true);
    this.probe.run(hashes, count, answers);
  }

  /** Removes one copy of each key, in order (the keys checked first); returns how many were found and removed. */
  deleteAll(keys: Iterable<Key>): number {
    checkAttached(NAME, this.table.bytes);
    const where = `${NAME}.deleteAll`;
    const list = keyList(where, keys);
    let removed = 0;
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, where);
      removed += this.deleteHashes(batchHashes(), count);
      start += count;
    }
    return removed;
  }

  /** `deleteHash` for a batch of hashed keys: `answers[j]` 1 when key j was removed; returns how many were. */
  deleteHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    checkAttached(NAME, this.table.bytes);
    checkHashBatch(`${NAME}.deleteHashes`, hashes, count, answers, false);
    let removed = this.probe.removeRun(hashes, count, answers);
    if (removed >= 0) {
      this.held -= removed;
      return removed;
    }
    removed = 0;
    for (let j = 0; j < count; j++) {
      const yes = this.deleteOne(hashes, 4 * j);
      if (yes) removed++;
      if (answers !== undefined) answers[j] = yes ? 1 : 0;
    }
    return removed;
  }

  /**
   * A new filter holding the fingerprints of both: every copy of `other`'s added to a copy of this one, as if its
   * keys had been added here (same shape and seed, else IncompatibleFiltersError). CapacityError, both unchanged,
   * when they do not fit together.
   */
  union(other: CuckooFilter): CuckooFilter {
    const mismatch = other instanceof CuckooFilter ? other.shape() : 'another kind of filter';
    if (mismatch !== this.shape()) {
      throw new IncompatibleFiltersError(`${NAME}.union: ${this.shape()} against ${mismatch}`);
    }
    const merged = this.clone();
    if (!merged.walk.placeAll(other.table)) {
      throw new CapacityError(
        `${NAME}.union: the fingerprints of both (${this.held} + ${other.held}) do not fit one table of ${this.table.slots} slots`,
      );
    }
    merged.held += other.held;
    return merged;
  }

  /** Refused: a cuckoo filter holds fingerprints, not positions, so there is no intersection of two. */
  intersect(_other: CuckooFilter): CuckooFilter {
    throw new IncompatibleFiltersError(
      `${NAME}.intersect: cuckoo filters have no intersection (their fingerprints may sit in either bucket); test keys against both instead`,
    );
  }

  /** What two filters must share to combine or be equal: buckets, bucket size, fingerprint bits, seed. */
  private shape(): string {
    return `${this.buckets} buckets of ${this.bucketSize}, ${this.fingerprintBits}-bit fingerprints, seed ${this.seed}`;
  }

  /** An independent copy. */
  clone(): CuckooFilter {
    return new CuckooFilter(this.params(), this.seed, this.table.copy());
  }

  /** Removes every key. */
  clear(): void {
    this.table.bytes.fill(0, 0, this.table.payloadBytes);
    this.held = 0;
  }

  /** True when both have the same shape, seed and slots. */
  equals(other: CuckooFilter): boolean {
    return (
      other instanceof CuckooFilter && this.shape() === other.shape() && this.table.sameSlots(other.table)
    );
  }

  /** The params block's fields now: the shape the filter was made with, and the count it holds. */
  private params(): CuckooParams {
    return { ...this.made, held: this.held };
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md §3.9), in one array. */
  serialize(): Uint8Array {
    return joinParts(cuckooKind, this.serializeParts());
  }

  /** The file as parts: header and params, the table (a view of the filter's own), the checksum. */
  serializeParts(): Uint8Array[] {
    return encodeNestedParts(cuckooKind, this.seed, writeParams(this.params()), [this.table.payload()]);
  }

  /**
   * For a filter read with `copy: false`: writes the fingerprint count and the checksum into the bytes it was read
   * from, so they are a valid file again, and returns them. InvalidArgumentError for any other filter.
   */
  syncBytes(): Uint8Array {
    return syncCuckooFile(`${NAME}.syncBytes`, this.inPlace, this.held);
  }

  /** The table's shape, for an inspector (`bloomkit info`, the sizing page), without a branch for this kind. */
  facts(): FilterFact[] {
    return cuckooFacts(this);
  }

  /**
   * The payload (§3.9's packed slots) as a view of the table, not a copy: what `@bloomkit/redis` keeps. A table of
   * 256 KiB to 1 MiB shares a kernel memory with other filters and is copied instead, so that every view derived
   * from the part stays valid after the filter is gone.
   */
  payloadParts(): Uint8Array[] {
    return [handOut(this.table.payload())];
  }

  /** The JSON form: `{ format: 'bloomkit', version, kind: 'cuckoo', base64 }`. */
  toJSON(): FilterJson {
    return toFilterJson(`${NAME}.toJSON`, cuckooKind.name, FORMAT_VERSION, this.serialize());
  }

  /**
   * Reads a filter written by {@link serialize}; every field is checked against the payload before anything is
   * allocated, and the fingerprint count against the slots; FormatError otherwise. With `copy: false` (one array)
   * the filter works in the given bytes ({@link syncBytes}).
   */
  static deserialize(bytes: ByteSource, options?: DeserializeOptions): CuckooFilter {
    const file = readCuckooFile(bytes, options, `${NAME}.deserialize`);
    return new CuckooFilter(file.params, file.seed, file.table, file.inPlace);
  }

  /** Reads the JSON form written by `toJSON()`; FormatError for anything else. */
  static fromJSON(json: unknown, options?: DeserializeOptions): CuckooFilter {
    return CuckooFilter.deserialize(fromFilterJson(`${NAME}.fromJSON`, json, cuckooKind.name), options);
  }
}
