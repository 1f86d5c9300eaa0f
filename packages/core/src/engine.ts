import { BATCH_KEYS, batchHashes, hashBackend, hashBatch } from './batch-hash.js';
import { IncompatibleFiltersError, InvalidArgumentError } from './errors.js';
import type { BloomFilter } from './filter.js';
import { FORMAT_VERSION } from './format.js';
import { type FilterJson, toFilterJson } from './json.js';
import { describe, type Key } from './key.js';
import type { KindRecord } from './kinds.js';
import { hashInto } from './murmur3.js';
import {
  blockOf,
  derivePositions,
  type Geometry,
  NARROW_LIMIT,
  narrowScale,
  reduceNarrow,
} from './positions.js';
import type { FilterShapeOptions, FilterState, ResolvedShape, ResolvedState } from './shape.js';
import { encodeSingleFilter, encodeSingleFilterParts, rewriteInPlace } from './single-filter-codec.js';
import type { FilterStore } from './storage.js';
import { checkHashBatch, keyList } from './validate.js';
import { blockedKernel } from './wasm/blocked-instance.js';
import type { BatchKernel } from './wasm/kernel-memory.js';
import { counterKernel, strideKernel } from './wasm/stride-instance.js';

/**
 * Bytes of bits from which a batch on the JavaScript loops touches its keys' lines before marking or probing them
 * (the WebAssembly kernel always does: see kernelBatch). Below, the lines are in cache or near it and the extra
 * loads cost about what they save. Measured with blocked filters, addAll/hasMany in batches of 4,096 URL keys,
 * touch forced on and off in one build: 10^6 keys (1.2 MB) 8.4/9.7 and 5.4/6.3 M/s on, 8.8/9.4 and 8.1/8.1 off;
 * 10^7 keys (12 MB) 4.5/4.2 on, 3.5/3.5 off.
 */
const TOUCH_FROM_BYTES = 4 * 1024 * 1024;

/** The blocked kernel's block: 512 bits, so a position's offset in it is p(i) >>> (32 − 9). */
const KERNEL_SHIFT = 23;

/** hasMany's answers from a kernel, a batch at a time. */
const kernelAnswers = new Uint8Array(BATCH_KEYS);

/**
 * The one engine behind every single filter (standard, partitioned, counting, blocked): a key is hashed once
 * (murmur3.ts), its k positions follow from the kind's layout (positions.ts), and the store marks or reads them
 * (bit-array.ts or counter-array.ts). The kind packages add only what is theirs: sizing by `create`, reading their
 * bytes, and (counting) delete.
 *
 * Contract: `has` may answer true for a key never added (a false positive, at about the rate the layout's formula
 * gives for the keys added) but never answers false for a key that was added. Every operation either completes or
 * throws before changing anything.
 *
 * Speed: `add` and `has` derive positions inline for ranges up to 2^32 (every filter up to 512 MiB, or slices up
 * to that), with the same arithmetic as positions.ts (a test checks the two agree bit for bit), ORing the store's
 * results so a half-full filter costs no mispredicted branch per position; `has` stops at the first empty slot.
 * Wider ranges go through {@link derivePositions}. Nothing is allocated per key.
 */
export class BloomEngine<S extends FilterStore<S>> implements BloomFilter {
  readonly bits: number;
  readonly hashes: number;
  readonly seed: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
  /** The bits or counters. */
  protected readonly store: S;
  /** The format kind: name, layout, counter widths. */
  protected readonly kind: KindRecord;
  /** Adds that returned true (saturating at 2^53 − 1). */
  protected counted: number;
  /** Where positions fall (FORMAT.md §5), from the layout: offsets in [0, range), interval i at i·stride. */
  protected readonly geometry: Geometry;
  private readonly stride: number;
  /** σ = range × 2^-32 for the narrow reduction (positions.ts). */
  private readonly scale: number;
  /** Blocked geometry: blocks × 2^-32 (0 when there is one block) and the bits per block. */
  private readonly blockScale: number;
  private readonly blockBits: number;
  /**
   * Blocked one-page bit stores: 32 − log2(B), so a position's offset in its block is p(i) >>> blockShift, exactly
   * ⌊p(i) × B × 2^-32⌋ (B is a power of two: the product is exact), in integer arithmetic; 0 on the other paths.
   * Measured on a 64 KiB block array, 9 positions a key: 44 ns a key against 59–65 ns in binary64.
   */
  private readonly blockShift: number;
  /**
   * The batch kernel over this filter's bits or counters (wasm/blocked.wat for a blocked filter, wasm/stride.wat for
   * a standard or partitioned one, and its counter entries for counting filters), when they live in a
   * WebAssembly memory of their own (new-bit-array.ts, new-counter-array.ts): made on the first batch; null when
   * there is none. Measured on 10^6 flat URL keys, one process, interleaved: blocked hasMany (1.2 MB of bits)
   * 102–129 ns a key against 125–163 in the JavaScript loops, the hash (~50 ns) included; counting (4.8 MB of 4-bit
   * counters) addAll 8.95 M keys/s against 5.15, hasMany 9.24 / 8.99 (hits / misses) against 5.62 / 6.53.
   */
  private kernel: BatchKernel | null | undefined;
  /** What the touch pass read: written so its loads are kept, never read. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: a sink for the touch pass's loads
  private touched = 0;
  private readonly narrow: boolean;
  /**
   * A one-page bit store's bytes, which the narrow loops read and write directly (bit i is bit i & 7 of byte
   * i >>> 3); undefined for counters and paged bits, which go through `store.mark` and `store.get`. Measured on 10^6
   * URL keys: the direct path is 5–8% faster than a method call per position.
   */
  private readonly bitBytes: Uint8Array | undefined;
  /** h1..h4 of the key being added or looked up. */
  private readonly hash = new Int32Array(4);
  /** Positions for the wide path (range > 2^32), allocated on first use. */
  private wide: Float64Array | undefined;
  private readonly addWhere: string;
  private readonly hasWhere: string;
  /** The file this filter works on in place (read with `copy: false` from one array), else undefined. */
  private readonly inPlace: Uint8Array | undefined;

  protected constructor(kind: KindRecord, shape: ResolvedShape, store: S, state: ResolvedState<S>) {
    if (store.size !== shape.bits) {
      throw new InvalidArgumentError(
        `new ${kind.className}: state.storage must hold exactly ${shape.bits} slots, got ${store.size}`,
      );
    }
    this.kind = kind;
    this.bits = shape.bits;
    this.hashes = shape.hashes;
    this.seed = shape.seed;
    this.store = store;
    this.counted = state.count;
    this.capacity = state.capacity;
    this.fpr = state.fpr;
    const geometry = kind.layout.geometry(shape.bits, shape.hashes);
    this.geometry = geometry;
    this.stride = geometry.stride;
    this.scale = narrowScale(geometry.range);
    const blocks = geometry.blocks ?? 1;
    this.blockScale = blocks > 1 ? narrowScale(blocks) : 0;
    this.blockBits = geometry.range;
    this.blockShift =
      blocks > 1 && store.bitBytes !== undefined && Number.isInteger(Math.log2(geometry.range))
        ? 32 - Math.log2(geometry.range)
        : 0;
    this.narrow = geometry.range <= NARROW_LIMIT;
    this.bitBytes = store.bitBytes;
    this.addWhere = `${kind.className}.add`;
    this.hasWhere = `${kind.className}.has`;
    this.inPlace = state.inPlace;
  }

  /** Adds that returned true: the distinct keys added, less those that looked present already (false positives). */
  get count(): number {
    return this.counted;
  }

  /** Adds `key`; true when it was not in the filter before (at least one slot was empty). */
  add(key: Key): boolean {
    hashInto(key, this.seed, this.hash, this.addWhere);
    return this.addHash(this.hash);
  }

  /** True when `key` may be in the filter; false when it certainly is not. */
  has(key: Key): boolean {
    hashInto(key, this.seed, this.hash, this.hasWhere);
    return this.hasHash(this.hash);
  }

  /**
   * `add` for a key already hashed: `hash` holds h1..h4 of the key with this filter's seed, as `hashInto` writes
   * them (`@bloomkit/core/kit`). Lets filters that share a seed (the sub-filters of a scalable filter) share
   * one hash per key.
   */
  addHash(hash: Int32Array): boolean {
    return this.markAt(hash, 0);
  }

  /** `has` for a key already hashed with this filter's seed (see {@link addHash}). */
  hasHash(hash: Int32Array): boolean {
    return this.probeAt(hash, 0);
  }

  /**
   * Adds every key; returns how many were new. Atomic: the keys are read once into a list and all checked before
   * the first is added, so a bad key (or an iterator that throws) leaves the filter unchanged. A string is refused
   * (it would be iterated as one-character keys): pass `[key]`. Keys go a batch at a time: hashed together
   * (batch-hash.ts, in WebAssembly where it loads), then each key's first slot touched, so the cache misses of
   * the batch overlap instead of following one another, then marked in order.
   */
  addAll(keys: Iterable<Key>): number {
    const list = keyList(`${this.kind.className}.addAll`, keys);
    let added = 0;
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, this.addWhere);
      added += this.markBatch(batchHashes(), count, undefined);
      start += count;
    }
    return added;
  }

  /**
   * `addHash` for a batch of keys already hashed: key j's h1..h4 at `hashes[4j .. 4j + 3]` for j < `count` (as
   * `hashBatch` and `hashLineBatch` in `@bloomkit/core/kit` write them), added in order as `addAll` adds
   * (first slots touched together, then marked). `answers[j]`, when given, is set to 1 when key j was new and 0
   * otherwise. Returns how many were new. Arguments are checked first (typed errors), so a bad call changes nothing.
   */
  addHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    checkHashBatch(`${this.kind.className}.addHashes`, hashes, count, answers, false);
    return this.markBatch(hashes, count, answers);
  }

  /** `hasHash` for a batch of keys already hashed (see {@link addHashes}): `answers[j]` is 1 when key j may be in. */
  hasHashes(hashes: Int32Array, count: number, answers: Uint8Array): void {
    checkHashBatch(`${this.kind.className}.hasHashes`, hashes, count, answers, true);
    const kernel = this.batchKernel();
    if (kernel !== null) {
      this.kernelBatch(kernel, hashes, count, false, answers);
      return;
    }
    this.touch(hashes, count);
    for (let j = 0; j < count; j++) answers[j] = this.probeAt(hashes, j * 4) ? 1 : 0;
  }

  /** Touches, then marks, `count` hashed keys in order; answers as {@link addHashes}. */
  private markBatch(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    const kernel = this.batchKernel();
    if (kernel !== null) {
      const added = this.kernelBatch(kernel, hashes, count, true, answers);
      this.counted = Math.min(Number.MAX_SAFE_INTEGER, this.counted + added);
      return added;
    }
    this.touch(hashes, count);
    let added = 0;
    for (let j = 0; j < count; j++) {
      const fresh = this.markAt(hashes, j * 4);
      if (fresh) added++;
      if (answers !== undefined) answers[j] = fresh ? 1 : 0;
    }
    return added;
  }

  /** `has` for each key of an array (checked whole first), a batch at a time as in {@link addAll}. */
  hasMany(keys: readonly Key[]): boolean[] {
    const list = keyList(`${this.kind.className}.hasMany`, keys);
    const out = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, this.hasWhere);
      const hashes = batchHashes();
      const kernel = this.batchKernel();
      if (kernel !== null) {
        this.kernelBatch(kernel, hashes, count, false, kernelAnswers);
        for (let j = 0; j < count; j++) out[start + j] = kernelAnswers[j] === 1;
      } else {
        this.touch(hashes, count);
        for (let j = 0; j < count; j++) out[start + j] = this.probeAt(hashes, j * 4);
      }
      start += count;
    }
    return out;
  }

  /**
   * The batch kernel when this filter has one (made on first use) and batches are not forced onto the JavaScript
   * path (`setHashBackend('javascript')` in batch-hash.ts, which the tests use to compare the two); else null.
   */
  private batchKernel(): BatchKernel | null {
    if (this.kernel === undefined) {
      const bytes = this.bitBytes;
      let kernel: BatchKernel | undefined;
      const store = this.store;
      if (bytes !== undefined && this.blockShift === KERNEL_SHIFT) kernel = blockedKernel(bytes);
      else if (bytes !== undefined && this.narrow && this.blockScale === 0)
        kernel = strideKernel(bytes, this.hashes);
      else if (store.counterBits !== 0 && store.pages.length === 1 && this.narrow && this.blockScale === 0)
        kernel = counterKernel(store.pages[0]!, this.hashes, store.counterBits);
      this.kernel = kernel ?? null;
    }
    return this.kernel !== null && hashBackend() === 'webassembly' ? this.kernel : null;
  }

  /**
   * Marks (or probes) `count` hashed keys with the kernel, in order, `keysPerCall` a call: copies their words into
   * the kernel's memory, runs it, copies its answers to `answers` when given. Returns how many keys were new (or
   * present).
   *
   * The kernel touches every key's lines first, at any size: it computes all the batch's blocks (or positions),
   * then reads them in a loop of loads alone. Blocked: ~12 ns a key from 320 KiB to 19 MiB of bits, where marking
   * without it waits on each line (random hashes, k = 10, ns a key touched/not: 320 KiB 33/35, 1.3 MiB 38/47,
   * 4 MiB 39/112).
   */
  private kernelBatch(
    kernel: BatchKernel,
    hashes: Int32Array,
    count: number,
    mark: boolean,
    answers: Uint8Array | undefined,
  ): number {
    // The two layout numbers the entries take (see BatchKernel): blocked, the block scale and shift; else the
    // reduction's scale and the stride between slices.
    const blocked = this.blockShift === KERNEL_SHIFT;
    const scale = blocked ? this.blockScale : this.scale;
    const step = blocked ? this.blockShift : this.stride;
    const most = kernel.keysPerCall;
    let total = 0;
    for (let done = 0; done < count; done += most) {
      const n = Math.min(most, count - done);
      kernel.hashes.set(hashes.subarray(done * 4, (done + n) * 4));
      total += mark ? kernel.mark(n, scale, step, this.hashes) : kernel.probe(n, scale, step, this.hashes);
      if (answers !== undefined) answers.set(kernel.answers.subarray(0, n), done);
    }
    return total;
  }

  /**
   * Reads the byte of the first slot of each of `count` hashed keys (a blocked key's block, a standard key's first
   * position): independent loads the processor keeps in flight together, so the marks and probes that follow find
   * their lines in cache. One-page bit stores of at least {@link TOUCH_FROM_BYTES} on the narrow path only.
   */
  private touch(hashes: Int32Array, count: number): void {
    const bytes = this.bitBytes;
    if (bytes === undefined || !this.narrow || bytes.length < TOUCH_FROM_BYTES) return;
    const scale = this.scale;
    const blockScale = this.blockScale;
    const blockBits = this.blockBits;
    let read = 0;
    if (blockScale !== 0) {
      // A block is 64 bytes, but the bytes' buffer is not 64-byte aligned (allocators align to 16), so a block
      // spans two cache lines: touch its first and its last byte.
      const last = (blockBits >>> 3) - 1;
      for (let j = 0; j < count * 4; j += 4) {
        const at =
          blockOf(hashes[j]!, hashes[j + 1]!, hashes[j + 2]!, hashes[j + 3]!, blockScale) * (blockBits >>> 3);
        read |= bytes[at]! | bytes[at + last]!;
      }
    } else {
      for (let j = 0; j < count * 4; j += 4) read |= bytes[reduceNarrow(hashes[j]! >>> 0, scale) >>> 3]!;
    }
    this.touched = read;
  }

  /**
   * Marks the k slots of the key whose h1..h4 are `hash[at .. at + 3]`; true (and `count` + 1) when one was empty.
   * Narrow geometries derive positions inline (FORMAT.md §5, as positions.ts does; a test checks the two agree):
   * p(i) = h1 + h2·i + h3·i² + h4·i³ (mod 2^32) by forward differences, offset ⌊p(i) × σ⌋, from the key's block.
   */
  private markAt(hash: Int32Array, at: number): boolean {
    const k = this.hashes;
    const store = this.store;
    let fresh = 0;
    if (this.blockShift !== 0) {
      const bytes = this.bitBytes!;
      const shift = this.blockShift;
      const h1 = hash[at]!;
      const h2 = hash[at + 1]!;
      const h3 = hash[at + 2]!;
      const h4 = hash[at + 3]!;
      let p = h1;
      let d1 = (h2 + h3 + h4) | 0;
      const d3 = Math.imul(h4, 6);
      let d2 = (Math.imul(h3, 2) + d3) | 0;
      const block = blockOf(h1, h2, h3, h4, this.blockScale) * (this.blockBits >>> 3);
      for (let i = 0; i < k; i++) {
        const offset = p >>> shift;
        const byte = block + (offset >>> 3);
        const mask = 1 << (offset & 7);
        const old = bytes[byte]!;
        bytes[byte] = old | mask;
        fresh |= ~old & mask;
        p = (p + d1) | 0;
        d1 = (d1 + d2) | 0;
        d2 = (d2 + d3) | 0;
      }
    } else if (this.narrow) {
      const stride = this.stride;
      const scale = this.scale;
      const bytes = this.bitBytes;
      const h1 = hash[at]!;
      const h2 = hash[at + 1]!;
      const h3 = hash[at + 2]!;
      const h4 = hash[at + 3]!;
      let p = h1;
      let d1 = (h2 + h3 + h4) | 0;
      const d3 = Math.imul(h4, 6);
      let d2 = (Math.imul(h3, 2) + d3) | 0;
      let base = this.blockScale === 0 ? 0 : blockOf(h1, h2, h3, h4, this.blockScale) * this.blockBits;
      for (let i = 0; i < k; i++) {
        const position = base + reduceNarrow(p >>> 0, scale);
        if (bytes !== undefined) {
          const byte = position >>> 3;
          const mask = 1 << (position & 7);
          const old = bytes[byte]!;
          bytes[byte] = old | mask;
          fresh |= ~old & mask;
        } else fresh |= store.mark(position);
        base += stride;
        p = (p + d1) | 0;
        d1 = (d1 + d2) | 0;
        d2 = (d2 + d3) | 0;
      }
    } else {
      const positions = this.widePositions(hash, at);
      for (let i = 0; i < k; i++) fresh |= store.mark(positions[i]!);
    }
    if (fresh === 0) return false;
    if (this.counted < Number.MAX_SAFE_INTEGER) this.counted++;
    return true;
  }

  /** True when all k slots of the key whose h1..h4 are `hash[at .. at + 3]` are set; stops at the first empty one. */
  private probeAt(hash: Int32Array, at: number): boolean {
    const k = this.hashes;
    const store = this.store;
    if (this.blockShift !== 0) {
      const bytes = this.bitBytes!;
      const shift = this.blockShift;
      const h1 = hash[at]!;
      const h2 = hash[at + 1]!;
      const h3 = hash[at + 2]!;
      const h4 = hash[at + 3]!;
      let p = h1;
      let d1 = (h2 + h3 + h4) | 0;
      const d3 = Math.imul(h4, 6);
      let d2 = (Math.imul(h3, 2) + d3) | 0;
      const block = blockOf(h1, h2, h3, h4, this.blockScale) * (this.blockBits >>> 3);
      for (let i = 0; i < k; i++) {
        const offset = p >>> shift;
        if ((bytes[block + (offset >>> 3)]! & (1 << (offset & 7))) === 0) return false;
        p = (p + d1) | 0;
        d1 = (d1 + d2) | 0;
        d2 = (d2 + d3) | 0;
      }
      return true;
    }
    if (this.narrow) {
      const stride = this.stride;
      const scale = this.scale;
      const bytes = this.bitBytes;
      const h1 = hash[at]!;
      const h2 = hash[at + 1]!;
      const h3 = hash[at + 2]!;
      const h4 = hash[at + 3]!;
      let p = h1;
      let d1 = (h2 + h3 + h4) | 0;
      const d3 = Math.imul(h4, 6);
      let d2 = (Math.imul(h3, 2) + d3) | 0;
      let base = this.blockScale === 0 ? 0 : blockOf(h1, h2, h3, h4, this.blockScale) * this.blockBits;
      for (let i = 0; i < k; i++) {
        const position = base + reduceNarrow(p >>> 0, scale);
        if (
          bytes !== undefined ? (bytes[position >>> 3]! & (1 << (position & 7))) === 0 : !store.get(position)
        ) {
          return false;
        }
        base += stride;
        p = (p + d1) | 0;
        d1 = (d1 + d2) | 0;
        d2 = (d2 + d3) | 0;
      }
      return true;
    }
    const positions = this.widePositions(hash, at);
    for (let i = 0; i < k; i++) if (!store.get(positions[i]!)) return false;
    return true;
  }

  /** Fraction of slots that are set (non-zero), in [0, 1]. */
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

  /** The same bytes as {@link serialize} as parts; the payload parts are views of this filter's storage. */
  serializeParts(): Uint8Array[] {
    return encodeSingleFilterParts(this.kind, this, this.store, this);
  }

  /**
   * The payload of the serialized form (docs/FORMAT.md §3.1–3.3: the bits or counters, between the params and the
   * checksum) as views of this filter's storage, one per page, not copies: the bytes a store that keeps only the
   * payload (such as `@bloomkit/redis`) writes. Read them before the filter next changes.
   */
  payloadParts(): Uint8Array[] {
    return [...this.store.pages];
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

  private widePositions(hash: Int32Array, at: number): Float64Array {
    if (this.wide === undefined) this.wide = new Float64Array(this.hashes);
    derivePositions(at === 0 ? hash : hash.subarray(at, at + 4), this.geometry, this.hashes, this.wide, 0);
    return this.wide;
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
