import {
  type BloomFilter,
  type ByteSource,
  type DeserializeOptions,
  type FilterFact,
  type FilterJson,
  FORMAT_VERSION,
  fact,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type KindRecord,
} from '@bloomkit/core';
import {
  checkAllocation,
  fromFilterJson,
  joinParts,
  readOptions,
  toFilterJson,
} from '@bloomkit/core/internal';
import { encodeParquetBloomHeader, readParquetBloomHeader } from './parquet-header.js';
import { type ParquetValue, PHYSICAL_TYPES, type PhysicalType, physicalTypeCode } from './physical-type.js';
import {
  BLOCK_BYTES,
  bitsetBytesForRate,
  checkBitsetBytes,
  checkRate,
  parquetBitsetBytes,
  splitBlockLayout,
} from './sizing.js';
import {
  decodeSplitBlock,
  encodeSplitBlockParts,
  type SplitBlockState,
  splitBlockKind,
} from './split-block-codec.js';
import { hashBatch, hashed, hashValue, valueList } from './value-hashing.js';

const NAME = 'SplitBlockBloomFilter';

import {
  batchHashes,
  foldWords,
  halves,
  hasValueBits,
  LITTLE_ENDIAN,
  meanBlockRate,
  setBits,
  setValueBits,
  wordsOf,
} from './split-block-bits.js';
import type { FromParquetOptions, SplitBlockCreateOptions } from './split-block-options.js';

/**
 * Parquet's split-block Bloom filter (apache/parquet-format BloomFilter.md; Putze, Sanders & Singler 2009): z
 * blocks of 256 bits, each eight 32-bit words. A value's XXH64 h (seed 0, of its plain bytes) picks block
 * ⌊(h >> 32)·z / 2^32⌋, and in each word i of it the bit (low32(h)·SALT[i] mod 2^32) >> 27: eight bits in one
 * 32-byte block, one a word. These are the filters parquet-java, Arrow (C++, Rust, pyarrow) and DuckDB write into a
 * Parquet file's column chunks; {@link fromParquet} reads theirs and {@link toParquet} writes one they read.
 *
 * Contract: `has` never answers false for an added value; it answers true for a value never added with probability
 * Σ_j Pois(n/z; j)·(1 − (31/32)^j)^8 after n distinct values ({@link splitBlockFalsePositiveRate}). A value of
 * another type than the column's is an InvalidArgumentError, never a silent "absent".
 *
 * Limits: z a power of two in [1, 2^22] (32 B to 128 MiB, what Parquet readers accept).
 * Serialized form: kind 8 of docs/FORMAT.md (the bitset as Parquet stores it, with the type and count).
 */
export class SplitBlockBloomFilter implements BloomFilter {
  /** Kind 8's format record: id, name, layout, hash algorithm 2. */
  static readonly kind: KindRecord = splitBlockKind;

  /** The column's physical type: how values are hashed. */
  readonly type: PhysicalType;
  /** z: blocks of 32 bytes. */
  readonly blocks: number;
  /** m = 256·z bits. */
  readonly bits: number;
  /** Bits a value sets: eight, one a word of its block. */
  readonly hashes: number = 8;
  /** XXH64's seed: 0. */
  readonly seed: number = 0;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
  private counted: number;
  /** The bitset as words (block b is words [8b, 8b + 8)). */
  private readonly words: Uint32Array;
  /** The caller's file bytes this filter works on (`copy: false`), else undefined. */
  private readonly inPlace: Uint8Array | undefined;
  /** hi32(h) >>> shift is the block: 32 − log2(z) (multiply-shift by a power of two), with `mask` for z = 1. */
  private readonly shift: number;
  private readonly mask: number;
  private readonly hash = new Uint32Array(2);

  private constructor(state: SplitBlockState, inPlace?: Uint8Array) {
    this.type = state.type;
    this.words = state.words;
    this.blocks = state.words.length / 8;
    this.bits = this.blocks * 256;
    this.counted = state.count;
    this.capacity = state.capacity;
    this.fpr = state.fpr;
    this.inPlace = inPlace;
    this.shift = 32 - Math.log2(this.blocks);
    this.mask = this.blocks - 1;
  }

  /**
   * An empty filter for `capacity` distinct values at rate `fpr`, sized as `options.sizing` says (see
   * {@link SplitBlockCreateOptions}).
   */
  static create(capacity: number, fpr: number, options?: SplitBlockCreateOptions): SplitBlockBloomFilter {
    const where = `${NAME}.create`;
    const o = readOptions(where, options);
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new InvalidArgumentError(
        `${where}: capacity must be an integer in [1, 2^53 - 1], got ${String(capacity)}`,
      );
    }
    checkRate(where, 'fpr', fpr);
    if (o.seed !== undefined && o.seed !== 0) {
      throw new InvalidArgumentError(
        `${where}: seed must be 0 (Parquet's XXH64 seed), got ${String(o.seed)}`,
      );
    }
    const sizing = o.sizing ?? 'rate';
    if (sizing !== 'rate' && sizing !== 'parquet') {
      throw new InvalidArgumentError(`${where}: sizing must be 'rate' or 'parquet', got ${String(sizing)}`);
    }
    const bytes =
      sizing === 'rate' ? bitsetBytesForRate(where, capacity, fpr) : parquetBitsetBytes(capacity, fpr);
    return SplitBlockBloomFilter.withBytes(where, bytes, o.type, o.maxBytes, capacity, fpr);
  }

  /**
   * An empty filter of `numBytes` bytes (a power of two in [32, 2^27], as Parquet's header gives it) for a column of
   * `type` (default BYTE_ARRAY).
   */
  static ofSize(
    numBytes: number,
    options?: { readonly type?: PhysicalType | undefined },
  ): SplitBlockBloomFilter {
    const where = `${NAME}.ofSize`;
    return SplitBlockBloomFilter.withBytes(
      where,
      numBytes,
      readOptions(where, options).type,
      undefined,
      undefined,
      undefined,
    );
  }

  private static withBytes(
    where: string,
    numBytes: number,
    type: unknown,
    maxBytes: unknown,
    capacity: number | undefined,
    fpr: number | undefined,
  ): SplitBlockBloomFilter {
    const code = physicalTypeCode(where, 'type', type ?? 'BYTE_ARRAY');
    checkBitsetBytes(where, numBytes);
    checkAllocation(where, numBytes, maxBytes);
    return new SplitBlockBloomFilter({
      type: PHYSICAL_TYPES[code]!,
      words: new Uint32Array(numBytes / 4),
      count: 0,
      capacity,
      fpr,
    });
  }

  /**
   * Reads a filter as Parquet stores it: a Thrift `BloomFilterHeader` then the bitset, exactly (FormatError naming
   * the field for anything else; see `readParquetBloomHeader`). `type` is the column's physical type, from the
   * file's schema (default BYTE_ARRAY). The count of a filter read so is unknown and starts at 0.
   */
  static fromParquet(bytes: Uint8Array, options?: FromParquetOptions): SplitBlockBloomFilter {
    const where = `${NAME}.fromParquet`;
    const o = readOptions(where, options);
    if (!(bytes instanceof Uint8Array)) {
      throw new InvalidArgumentError(`${where}: bytes must be a Uint8Array, got ${typeof bytes}`);
    }
    const code = physicalTypeCode(where, 'type', o.type ?? 'BYTE_ARRAY');
    const { numBytes, headerLength } = readParquetBloomHeader(bytes, 0, where);
    if (headerLength + numBytes !== bytes.length) {
      throw new InvalidArgumentError(
        `${where}: ${bytes.length - headerLength - numBytes} bytes follow the bitset; pass exactly the header and the bitset`,
      );
    }
    const bitset = bytes.subarray(headerLength);
    const inPlace = o.copy === false && LITTLE_ENDIAN && (bitset.byteOffset & 3) === 0;
    return new SplitBlockBloomFilter({
      type: PHYSICAL_TYPES[code]!,
      words: inPlace ? new Uint32Array(bitset.buffer, bitset.byteOffset, numBytes / 4) : wordsOf(bitset),
      count: 0,
      capacity: undefined,
      fpr: undefined,
    });
  }

  /** The filter as Parquet stores it: the Thrift `BloomFilterHeader` and the bitset (what `fromParquet` reads). */
  toParquet(): Uint8Array {
    const header = encodeParquetBloomHeader(this.blocks * BLOCK_BYTES);
    const out = new Uint8Array(header.length + this.blocks * BLOCK_BYTES);
    out.set(header);
    out.set(this.bitset(), header.length);
    return out;
  }

  /** The bitset's bytes, as Parquet stores them after the header: a view of the filter's words (copy it to keep it). */
  bitset(): Uint8Array {
    if (LITTLE_ENDIAN) return new Uint8Array(this.words.buffer, this.words.byteOffset, this.words.byteLength);
    const out = new Uint8Array(this.words.byteLength);
    const view = new DataView(out.buffer);
    for (let i = 0; i < this.words.length; i++) view.setUint32(4 * i, this.words[i]!, true);
    return out;
  }

  get count(): number {
    return this.counted;
  }

  /** Its column type and blocks, for an inspector (`bloomkit info`, the sizing page). */
  facts(): FilterFact[] {
    return [fact('type', 'column type', this.type), fact('blocks', 'blocks of 256 bits', this.blocks)];
  }

  /** Adds `value`; true when it changed the filter (a value of another type than the column's is refused). */
  add(value: ParquetValue): boolean {
    hashValue(`${NAME}.add`, this.type, value, this.hash);
    return this.insert(this.hash[0]!, this.hash[1]!);
  }

  /** True when `value` may be in the filter; false when it certainly is not. */
  has(value: ParquetValue): boolean {
    hashValue(`${NAME}.has`, this.type, value, this.hash);
    return this.probe(this.hash[0]!, this.hash[1]!);
  }

  /** Adds a value by its XXH64 (seed 0) as a 64-bit bigint, for a caller that hashed it: what `add` does after hashing. */
  addHash(hash: bigint): boolean {
    const [low, high] = halves(`${NAME}.addHash`, hash);
    return this.insert(low, high);
  }

  /** `has` of a value by its XXH64 as a bigint. */
  hasHash(hash: bigint): boolean {
    const [low, high] = halves(`${NAME}.hasHash`, hash);
    return this.probe(low, high);
  }

  /** Adds every value (all checked first: a bad one changes nothing); returns how many changed the filter. */
  addAll(values: Iterable<ParquetValue>): number {
    const where = `${NAME}.addAll`;
    const list = valueList(where, this.type, values);
    let added = 0;
    for (let start = 0; start < list.length; ) {
      const n = hashBatch(where, this.type, list, start, batchHashes());
      const hashes = hashed.hashes;
      for (let j = 0; j < n; j++) if (this.insert(hashes[2 * j]!, hashes[2 * j + 1]!)) added++;
      start += n;
    }
    return added;
  }

  /** `has` of each value, hashed a batch at a time in the kernel. */
  hasMany(values: readonly ParquetValue[]): boolean[] {
    const where = `${NAME}.hasMany`;
    const list = valueList(where, this.type, values, false);
    const answers = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const n = hashBatch(where, this.type, list, start, batchHashes());
      const hashes = hashed.hashes;
      for (let j = 0; j < n; j++) answers[start + j] = this.probe(hashes[2 * j]!, hashes[2 * j + 1]!);
      start += n;
    }
    return answers;
  }

  /** Sets the value's eight bits (split-block-bits.ts); true when one was clear. */
  private insert(low: number, high: number): boolean {
    const base = ((high >>> this.shift) & this.mask) * 8;
    if (hasValueBits(this.words, base, low)) return false;
    setValueBits(this.words, base, low);
    this.counted++;
    return true;
  }

  /** True when the value's eight bits are all set. */
  private probe(low: number, high: number): boolean {
    return hasValueBits(this.words, ((high >>> this.shift) & this.mask) * 8, low);
  }

  /** Fraction of the bits that are set. */
  fillRatio(): number {
    return setBits(this.words, 0, this.words.length) / this.bits;
  }

  /** Distinct values added, estimated from the fill (each value sets one bit in each word of its block). */
  estimatedCount(): number {
    return splitBlockLayout.estimateCount(setBits(this.words, 0, this.words.length), this.bits, 8);
  }

  /**
   * The false-positive rate now, from the filter's own bits: the mean over blocks of (set bits / 256)^8, the chance
   * that a value never added finds its bit set in all eight words of a block it picks uniformly (as arrow-rs
   * estimates it; exact for a word-uniform fill, and a close upper-side estimate otherwise).
   */
  expectedFpr(): number {
    return meanBlockRate(this.words);
  }

  /** A new filter holding the values of both: same type and size, else IncompatibleFiltersError. */
  union(other: this): this {
    return this.combine(other, 'union', (a, b) => a | b);
  }

  /** A new filter whose bits are set in both: holds every value present in both. */
  intersect(other: this): this {
    return this.combine(other, 'intersect', (a, b) => a & b);
  }

  private combine(other: this, what: string, op: (a: number, b: number) => number): this {
    this.checkCompatible(other, what);
    const words = new Uint32Array(this.words.length);
    for (let i = 0; i < words.length; i++) words[i] = op(this.words[i]!, other.words[i]!);
    return new SplitBlockBloomFilter({
      type: this.type,
      words,
      count: Math.round(splitBlockLayout.estimateCount(setBits(words, 0, words.length), this.bits, 8)),
      capacity: this.capacity,
      fpr: this.fpr,
    }) as this;
  }

  private checkCompatible(other: unknown, what: string): asserts other is SplitBlockBloomFilter {
    if (!(other instanceof SplitBlockBloomFilter)) {
      throw new IncompatibleFiltersError(`${NAME}.${what}: other must be a SplitBlockBloomFilter`);
    }
    if (other.blocks !== this.blocks || other.type !== this.type) {
      throw new IncompatibleFiltersError(
        `${NAME}.${what}: filters differ (${this.blocks} blocks of ${this.type} vs ${other.blocks} blocks of ${other.type}); fold the larger to the smaller's size first`,
      );
    }
  }

  /**
   * The filter at half its size, `times` times over (default once): blocks 2j and 2j + 1 OR-ed into block j. With
   * multiply-shift, a value's block at z/2 is ⌊its block at z / 2⌋, so the result is bit for bit the filter built
   * at the smaller size from the same values (arrow-rs's folding). Refused below one block.
   */
  fold(times = 1): SplitBlockBloomFilter {
    const where = `${NAME}.fold`;
    if (!Number.isInteger(times) || times < 0 || this.blocks / 2 ** times < 1) {
      throw new InvalidArgumentError(
        `${where}: times must be an integer in [0, ${Math.log2(this.blocks)}], got ${String(times)}`,
      );
    }
    let words = this.words;
    for (let t = 0; t < times; t++) words = foldWords(words);
    return new SplitBlockBloomFilter({
      type: this.type,
      words: words === this.words ? words.slice() : words,
      count: this.counted,
      capacity: this.capacity,
      fpr: this.fpr,
    });
  }

  /**
   * The smallest fold of this filter whose {@link expectedFpr} stays at most `fpr` (this filter's size when no fold
   * does): how a writer that sized for a guess of the distinct values shrinks the filter once it knows them.
   */
  foldTo(fpr: number): SplitBlockBloomFilter {
    checkRate(`${NAME}.foldTo`, 'fpr', fpr);
    let best = this.fold(0);
    while (best.blocks > 1) {
      const next = best.fold(1);
      if (next.expectedFpr() > fpr) break;
      best = next;
    }
    return best;
  }

  /** An independent copy. */
  clone(): this {
    const { type, counted: count, capacity, fpr } = this;
    return new SplitBlockBloomFilter({ type, words: this.words.slice(), count, capacity, fpr }) as this;
  }

  /** Removes every value. */
  clear(): void {
    this.words.fill(0);
    this.counted = 0;
  }

  /** True when both have the same type, size and bits. */
  equals(other: this): boolean {
    if (!(other instanceof SplitBlockBloomFilter) || other.blocks !== this.blocks || other.type !== this.type)
      return false;
    for (let i = 0; i < this.words.length; i++) if (this.words[i] !== other.words[i]) return false;
    return true;
  }

  /** The filter in bloomkit's format (docs/FORMAT.md §3.7, kind 8). */
  serialize(): Uint8Array {
    return joinParts(splitBlockKind, this.serializeParts());
  }

  /** The same bytes as parts; the payload part is a view of the filter's bits (on little-endian hosts). */
  serializeParts(): Uint8Array[] {
    const { type, counted: count, capacity, fpr } = this;
    return encodeSplitBlockParts({ type, words: this.words, count, capacity, fpr }, this.bitset());
  }

  /** For a filter read with `copy: false`: rewrites the count and checksum in the caller's bytes; returns them. */
  syncBytes(): Uint8Array {
    if (this.inPlace === undefined) {
      throw new InvalidArgumentError(
        `${NAME}.syncBytes: this filter does not work in place (it was not read with copy: false from one aligned array); use serialize()`,
      );
    }
    const parts = this.serializeParts();
    this.inPlace.set(parts[0]!, 0);
    this.inPlace.set(parts[parts.length - 1]!, this.inPlace.length - 4);
    return this.inPlace;
  }

  /** The JSON form: the file in base64. */
  toJSON(): FilterJson {
    return toFilterJson(`${NAME}.toJSON`, splitBlockKind.name, FORMAT_VERSION, this.serialize());
  }

  /** Reads a filter written by {@link serialize}; `copy: false` works on the bytes in place where they are aligned. */
  static deserialize(
    bytes: ByteSource,
    options?: DeserializeOptions & { readonly maxBytes?: number | undefined },
  ): SplitBlockBloomFilter {
    const { state, inPlace } = decodeSplitBlock(bytes, `${NAME}.deserialize`, options);
    return new SplitBlockBloomFilter(state, inPlace);
  }

  /** Reads the JSON form (`toJSON`), as a string or a parsed object. */
  static fromJSON(json: unknown, options?: DeserializeOptions): SplitBlockBloomFilter {
    return SplitBlockBloomFilter.deserialize(
      fromFilterJson(`${NAME}.fromJSON`, json, splitBlockKind.name),
      options,
    );
  }
}
