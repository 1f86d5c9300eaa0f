import {
  type ByteSource,
  type DeserializeOptions,
  type FilterFact,
  type FilterJson,
  FORMAT_VERSION,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
  type KindRecord,
} from '@bloomkit/core';
import {
  checkAllocation,
  decodeChain,
  encodeNestedParts,
  fromFilterJson,
  handOut,
  joinParts,
  newKernelBytes,
  readDeserializeOptions,
  resolveSeed,
  toFilterJson,
} from '@bloomkit/core/internal';
import { batchHashes, checkAttached, hashBatch, hashInto, keyList } from '@bloomkit/core/kit';
import { type FuseParams, fuseKind, readParams, writeParams } from './fuse-codec.js';
import { fuseFacts } from './fuse-facts.js';
import type { FuseLayout } from './fuse-layout.js';
import { checkCount, type FuseBuildOptions, type FuseReference, fingerprintBitsOf } from './fuse-options.js';
import { FuseProbe } from './fuse-probe.js';
import { buildSet, keyWords } from './fuse-set.js';

/** `hasMany`'s answers of one hashed batch, before they become booleans: grown to the largest batch seen. */
let batchAnswers = new Uint8Array(1024);

const NAME = 'BinaryFuseFilter';

/**
 * A binary fuse filter (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 27, 2022):
 * a fixed set of keys in about 1.125 × n fingerprints of 8 or 16 bits (9.0 or 18.0 bits a key at 10^6 keys), each
 * key present when its fingerprint equals the XOR of three slots' fingerprints, one in each of three consecutive
 * segments. A key never added is present at rate 2^-8 (0.39%) or 2^-16; an added key always is. The set is built
 * once (`build`, `fromHashes`) and never changes: `add` throws.
 *
 * Byte for byte the C reference (FastFilter/xor_singleheader `binaryfusefilter.h`): from the same 64-bit keys,
 * `fromHashes` gives the reference's seed, segments and fingerprints (`reference()`), duplicates included (sorted
 * with a valid comparator). A key's 64-bit hash is the first 64 bits of MurmurHash3 x86_128 (docs/FORMAT.md §4):
 * h1 the low word, h2 the high.
 *
 * Serialized form: kind 9 of docs/FORMAT.md (§3.8). A lookup allocates nothing.
 */
export class BinaryFuseFilter {
  /** Kind 9's format record. */
  static readonly kind: KindRecord = fuseKind;

  /** Bits of a fingerprint: 8 or 16. */
  readonly fingerprintBits: 8 | 16;
  /** MurmurHash3's seed for `has` (0 for a filter built from the caller's hashes). */
  readonly seed: number;
  /** Distinct keys held. */
  readonly size: number;
  /** Positions a key: its three slots. */
  readonly hashes = 3;
  private readonly layout: FuseLayout;
  /** True for a filter of the caller's 64-bit hashes (`fromHashes`): it answers `hasHashes`, not `has`. */
  readonly callerHashes: boolean;
  private readonly seedHigh: number;
  private readonly seedLow: number;
  private readonly fingerprints: Uint8Array | Uint16Array;
  /** The fingerprints' bytes as allocated (a kernel memory's view, a plain array, or the file read in place). */
  private readonly bytes: Uint8Array;
  private readonly hash = new Int32Array(4);
  private readonly probe: FuseProbe;

  /**
   * `bytes` are the fingerprints' bytes (u16 little-endian for 16 bits, at an even offset): the filter keeps them
   * and reads them through a typed view; where they lie in a kernel memory, its batch lookups run on fuse.wat.
   */
  private constructor(params: FuseParams, seed: number, bytes: Uint8Array) {
    const fingerprints =
      params.fingerprintBits === 8
        ? bytes
        : new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
    this.fingerprintBits = params.fingerprintBits;
    this.callerHashes = params.callerHashes;
    this.layout = params.layout;
    this.seedHigh = params.seedHigh | 0;
    this.seedLow = params.seedLow | 0;
    this.size = params.keys;
    this.seed = seed;
    this.fingerprints = fingerprints;
    this.bytes = bytes;
    this.probe = new FuseProbe(params.layout, this.seedHigh, this.seedLow, fingerprints, bytes);
  }

  /**
   * The filter of `keys` (strings, hashed as UTF-8, or Uint8Arrays), repeats allowed: each key's 64-bit hash is the
   * first 64 bits of MurmurHash3 x86_128 with `seed`, and the filter is `fromHashes` of the distinct hashes, each at
   * its first occurrence: repeats cost nothing (docs/FORMAT.md §3.8). Without repeats, `fromHashes` of the hashes.
   */
  static build(keys: Iterable<Key>, options?: FuseBuildOptions): BinaryFuseFilter {
    const where = `${NAME}.build`;
    const bits = fingerprintBitsOf(where, options?.fingerprintBits);
    const seed = resolveSeed(where, options?.seed);
    const list = keyList(where, keys);
    checkCount(where, list.length);
    return BinaryFuseFilter.fromWords(where, keyWords(where, list, seed), bits, seed, false, true);
  }

  /**
   * The filter of 64-bit keys, byte for byte what the C reference's `binary_fuse8_populate` (or 16) builds from
   * them; the caller's array is left as it was. Such a filter answers `hasHashes`, not `has`.
   */
  static fromHashes(
    hashes: BigUint64Array,
    options?: Pick<FuseBuildOptions, 'fingerprintBits'>,
  ): BinaryFuseFilter {
    const where = `${NAME}.fromHashes`;
    if (!(hashes instanceof BigUint64Array)) {
      throw new InvalidArgumentError(`${where}: hashes must be a BigUint64Array`);
    }
    const bits = fingerprintBitsOf(where, options?.fingerprintBits);
    checkCount(where, hashes.length);
    // The caller's words, read only: the build's steps copy them (populate).
    const words = new Uint32Array(hashes.buffer, hashes.byteOffset, 2 * hashes.length);
    return BinaryFuseFilter.fromWords(where, words, bits, 0, true, false);
  }

  /**
   * The filter of keys given by their 64-bit hashes as {@link build} computes them (the first 64 bits of MurmurHash3
   * x86_128 with `seed`: h1 the low word, h2 the high), for a caller that hashed its keys as they streamed past (a
   * table file's writer, a command reading lines). It answers `has` of the keys themselves, as `build`'s does:
   * `fromKeyHashes(hashes of keys, { seed })` equals `build(keys, { seed })`. The caller's array is left as it was.
   */
  static fromKeyHashes(
    hashes: BigUint64Array,
    options?: { readonly fingerprintBits?: 8 | 16; readonly seed?: number },
  ): BinaryFuseFilter {
    const where = `${NAME}.fromKeyHashes`;
    if (!(hashes instanceof BigUint64Array)) {
      throw new InvalidArgumentError(`${where}: hashes must be a BigUint64Array`);
    }
    if (options?.seed === ('random' as unknown)) {
      throw new InvalidArgumentError(
        `${where}: seed must be the one the keys were hashed with, not 'random'`,
      );
    }
    const bits = fingerprintBitsOf(where, options?.fingerprintBits);
    const seed = resolveSeed(where, options?.seed);
    checkCount(where, hashes.length);
    // The caller's words, read only: the build's steps copy them (populate).
    const words = new Uint32Array(hashes.buffer, hashes.byteOffset, 2 * hashes.length);
    return BinaryFuseFilter.fromWords(where, words, bits, seed, false, true);
  }

  /** The filter of the set `words`, built with or without dropping repeats first (fuse-set.ts, buildSet). */
  private static fromWords(
    where: string,
    words: Uint32Array,
    bits: 8 | 16,
    seed: number,
    callerHashes: boolean,
    distinct: boolean,
  ): BinaryFuseFilter {
    const built = buildSet(where, words, bits, distinct);
    const params: FuseParams = {
      fingerprintBits: bits,
      callerHashes,
      layout: built.layout,
      seedHigh: built.seedHigh,
      seedLow: built.seedLow,
      keys: built.keys,
    };
    return new BinaryFuseFilter(params, seed, built.bytes);
  }

  /** True when `key` may be in the set (always for a key of the set; at rate 2^-bits for others). */
  has(key: Key): boolean {
    this.checkKeyed(`${NAME}.has`);
    hashInto(key, this.seed, this.hash, `${NAME}.has`);
    return this.contains(this.hash[1]!, this.hash[0]!);
  }

  /** {@link has} of each key, the keys hashed in batches (WebAssembly where it loads, core's batch-hash.ts). */
  hasMany(keys: readonly Key[]): boolean[] {
    const where = `${NAME}.hasMany`;
    this.checkKeyed(where);
    const list = keyList(where, keys);
    const out = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, where);
      if (batchAnswers.length < count) batchAnswers = new Uint8Array(count);
      const answers = batchAnswers;
      checkAttached(NAME, this.bytes);
      this.probe.run(batchHashes(), count, answers);
      for (let j = 0; j < count; j++) out[start + j] = answers[j] === 1;
      start += count;
    }
    return out;
  }

  /** Refuses `has` on a filter of the caller's 64-bit hashes: no key hashes to them here. */
  private checkKeyed(where: string): void {
    if (this.callerHashes) {
      throw new InvalidArgumentError(
        `${where}: this filter was built from 64-bit hashes (fromHashes); ask it with hasHashes`,
      );
    }
  }

  /**
   * {@link has} of a key already hashed: `hash[at..at + 1]` are its MurmurHash3 x86_128 words h1 and h2 with this
   * filter's seed (as core's `hashInto` writes them, a Uint32Array or an Int32Array). Allocates nothing.
   */
  hasHash(hash: Int32Array | Uint32Array, at = 0): boolean {
    this.checkKeyed(`${NAME}.hasHash`);
    if (
      !(hash instanceof Int32Array || hash instanceof Uint32Array) ||
      !(at >= 0 && (at | 0) === at && at + 2 <= hash.length)
    ) {
      throw new InvalidArgumentError(
        `${NAME}.hasHash: hash must be an Int32Array or a Uint32Array holding h1 and h2 at hash[at .. at + 1] (at an integer in [0, length - 2]), got ${Object.prototype.toString.call(hash)} with at ${String(at)}`,
      );
    }
    return this.contains(hash[at + 1]! | 0, hash[at]! | 0);
  }

  /** Whether each 64-bit key (as given to `fromHashes`, or a key's hash as `build` takes it) may be in the set. */
  hasHashes(hashes: BigUint64Array): boolean[] {
    if (!(hashes instanceof BigUint64Array)) {
      throw new InvalidArgumentError(`${NAME}.hasHashes: hashes must be a BigUint64Array`);
    }
    const words = new Uint32Array(hashes.buffer, hashes.byteOffset, 2 * hashes.length);
    const out = new Array<boolean>(hashes.length);
    for (let i = 0; i < hashes.length; i++) out[i] = this.contains(words[2 * i + 1]! | 0, words[2 * i]! | 0);
    return out;
  }

  /** The set is fixed: build a new filter. */
  add(_key: Key): never {
    throw new InvalidArgumentError(
      `${NAME}.add: a binary fuse filter holds a fixed set; build a new one (BinaryFuseFilter.build) with the key`,
    );
  }

  /**
   * Refused: a binary fuse filter is built once from its whole set (there is no empty filter to add to). Build it
   * with {@link build} (or {@link fromHashes}); a rate picks the fingerprint bits ({@link fingerprintBitsFor}).
   */
  static create(_capacity: number, _fpr: number, _options?: unknown): never {
    throw new InvalidArgumentError(
      `${NAME}.create: a binary fuse filter holds a fixed set and is built from its keys: BinaryFuseFilter.build(keys, { fingerprintBits: 8 | 16 }), or at a shell bloomkit build FILE --kind fuse8 (or fuse16) --from KEYS`,
    );
  }

  /** Refused as {@link add} is: the set is fixed. */
  addAll(_keys: Iterable<Key>): never {
    throw new InvalidArgumentError(
      `${NAME}.addAll: a binary fuse filter holds a fixed set; build a new one (BinaryFuseFilter.build) with all the keys`,
    );
  }

  /** Refused: the set is fixed (build an empty one to hold nothing). */
  clear(): never {
    throw new InvalidArgumentError(`${NAME}.clear: a binary fuse filter holds a fixed set; build a new one`);
  }

  /** Refused: fingerprints of two fuse filters do not combine; build one filter from both key sets. */
  union(_other: BinaryFuseFilter): never {
    throw new IncompatibleFiltersError(
      `${NAME}.union: two binary fuse filters do not combine; build one from both key sets`,
    );
  }

  /** Refused: fingerprints of two fuse filters do not combine; test keys against both instead. */
  intersect(_other: BinaryFuseFilter): never {
    throw new IncompatibleFiltersError(
      `${NAME}.intersect: two binary fuse filters do not combine; test keys against both instead`,
    );
  }

  /** An independent copy (its own fingerprints). */
  clone(): BinaryFuseFilter {
    return new BinaryFuseFilter(this.params(), this.seed, newKernelBytes(this.bytes.length, this.bytes));
  }

  /** True when both hold the same set the same way: fingerprint bits, key source, seeds, layout, fingerprints. */
  equals(other: BinaryFuseFilter): boolean {
    if (!(other instanceof BinaryFuseFilter)) return false;
    const a = this.fingerprints;
    const b = other.fingerprints;
    if (
      this.fingerprintBits !== other.fingerprintBits ||
      this.callerHashes !== other.callerHashes ||
      this.seed !== other.seed ||
      this.seedHigh !== other.seedHigh ||
      this.seedLow !== other.seedLow ||
      this.size !== other.size ||
      this.layout.size !== other.layout.size ||
      a.length !== b.length
    ) {
      return false;
    }
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /** Distinct keys held (as {@link size}): the shared API's count of keys that went in. */
  get count(): number {
    return this.size;
  }

  /** m: bits of the fingerprints, (segmentCount + 2) × segmentLength × fingerprintBits. */
  get bits(): number {
    return this.layout.arrayLength * this.fingerprintBits;
  }

  /** The keys the set was built for: its distinct keys. */
  get capacity(): number {
    return this.size;
  }

  /** The rate the set was built for: 2^-fingerprintBits. */
  get fpr(): number {
    return this.expectedFpr();
  }

  /** Slots a key holds: distinct keys over slots (about 0.89 for large sets, 1 / 1.125). */
  fillRatio(): number {
    return this.layout.arrayLength === 0 ? 0 : this.size / this.layout.arrayLength;
  }

  /** The distinct keys held: a fixed set knows its size. */
  estimatedCount(): number {
    return this.size;
  }

  /** The filter's own shape as facts, for an inspector: fingerprint bits, segments, slots, where keys came from. */
  facts(): FilterFact[] {
    return fuseFacts({
      fingerprintBits: this.fingerprintBits,
      callerHashes: this.callerHashes,
      ...this.layout,
    });
  }

  /** The params block's fields. */
  private params(): FuseParams {
    return {
      fingerprintBits: this.fingerprintBits,
      callerHashes: this.callerHashes,
      layout: this.layout,
      seedHigh: this.seedHigh,
      seedLow: this.seedLow,
      keys: this.size,
    };
  }

  /** Bits a key: the fingerprints' bits over the distinct keys (the array's for an empty set). */
  get bitsPerKey(): number {
    return (this.layout.arrayLength * this.fingerprintBits) / Math.max(1, this.size);
  }

  /** The rate at which a key not in the set is present: 2^-bits (each slot's fingerprint is uniform). */
  expectedFpr(): number {
    return 2 ** -this.fingerprintBits;
  }

  /** The reference struct's fields; `fingerprints` is the filter's own array (do not change it). */
  reference(): FuseReference {
    const { layout } = this;
    return {
      seed: (BigInt(this.seedHigh >>> 0) << 32n) | BigInt(this.seedLow >>> 0),
      size: layout.size,
      segmentLength: layout.segmentLength,
      segmentLengthMask: layout.segmentLengthMask,
      segmentCount: layout.segmentCount,
      segmentCountLength: layout.segmentCountLength,
      arrayLength: layout.arrayLength,
      fingerprints: this.fingerprints,
    };
  }

  /** Membership of the 64-bit key (high:low, int32 words): docs/FORMAT.md §3.8. */
  private contains(high: number, low: number): boolean {
    if (this.probe.contains(high, low)) return true;
    checkAttached(NAME, this.bytes);
    return false;
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md §3.8). */
  serialize(): Uint8Array {
    return joinParts(fuseKind, this.serializeParts());
  }

  /**
   * The payload alone: the fingerprints' bytes (a view of the filter's own; u16 little-endian for 16 bits). Bytes of
   * 256 KiB to 1 MiB that share a kernel memory with other filters are copied instead, so that every view derived
   * from the part stays valid after the filter is gone.
   */
  payloadParts(): Uint8Array[] {
    return [handOut(this.bytes)];
  }

  /** The file as parts: the header and params, the fingerprints (a view of the filter's own), the checksum. */
  serializeParts(): Uint8Array[] {
    return encodeNestedParts(fuseKind, this.seed, writeParams(this.params()), this.payloadParts());
  }

  /** The JSON form: `{ kind: 'fuse', version, data }`, the file in base64. */
  toJSON(): FilterJson {
    return toFilterJson(`${NAME}.toJSON`, fuseKind.name, FORMAT_VERSION, this.serialize());
  }

  /**
   * Reads a filter written by {@link serialize}. The set never changes, so the fingerprints are read in place (the
   * bytes must not change while the filter is used) unless `copy: true`, or when 16-bit fingerprints sit at an odd
   * offset. Checks every field against the payload before anything is allocated; FormatError otherwise.
   */
  static deserialize(bytes: ByteSource, options?: DeserializeOptions): BinaryFuseFilter {
    const where = `${NAME}.deserialize`;
    const read = readDeserializeOptions(where, { copy: false, ...options });
    const envelope = decodeChain(fuseKind, bytes, { verifyChecksum: read.verifyChecksum, where });
    const params = readParams(envelope.params, envelope.payloadLength, where);
    const payload =
      envelope.payload.length === 1 ? envelope.payload[0]! : joinParts(fuseKind, envelope.payload);
    const aligned = params.fingerprintBits === 8 || payload.byteOffset % 2 === 0;
    let fingerprints = payload;
    if (read.copy || !aligned) {
      checkAllocation(where, payload.length, undefined);
      fingerprints = newKernelBytes(payload.length, payload);
    }
    if (params.callerHashes && envelope.seed !== 0) {
      throw new FormatError(`${where}: a filter of the caller's hashes has seed 0, got ${envelope.seed}`);
    }
    return new BinaryFuseFilter(params, envelope.seed, fingerprints);
  }

  /** Reads the JSON form written by `toJSON()`; FormatError for anything else. */
  static fromJSON(json: unknown, options?: DeserializeOptions): BinaryFuseFilter {
    return BinaryFuseFilter.deserialize(fromFilterJson(`${NAME}.fromJSON`, json, fuseKind.name), options);
  }
}
