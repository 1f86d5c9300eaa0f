import { BATCH_KEYS, batchHashes, hashBatch } from './batch-hash.js';
import { InvalidArgumentError } from './errors.js';
import { KernelChoice } from './kernel/backend.js';
import { bitKernelFor, KERNEL_SHIFT } from './kernel/bit-kernels.js';
import { LoopKernel } from './kernel/loop-kernel.js';
import type { Key } from './key.js';
import type { KindRecord } from './kinds.js';
import { hashInto } from './murmur3.js';
import { NARROW_LIMIT, narrowScale } from './narrow.js';
import type { Geometry } from './positions.js';
import type { ResolvedShape, ResolvedState } from './shape.js';
import type { FilterStore } from './storage.js';
import { checkAttached, checkHashAt, checkHashBatch, keyList } from './validate.js';
import type { BatchKernel } from './wasm/kernel-memory.js';

/** hasMany's answers from the batch kernel, a batch at a time. */
const batchAnswers = new Uint8Array(BATCH_KEYS);

/**
 * A single filter's state and its slots: the shape, the store, the count, and `add`/`has` for one key or a batch.
 * A key is hashed once (murmur3.ts); its k slots follow from the kind's layout (positions.ts) and are marked or
 * read by its layout family's loop (kernel/loop-kernel.ts over kernel/slot-loops.ts: every range up to 2^32, so
 * every filter up to 512 MiB, or slices up to that; wider ranges through `derivePositions`). A batch is one call
 * to the filter's batch kernel: its WebAssembly kernel when it has one (kernel/bit-kernels.ts, chosen once and
 * obeying the one switch of kernel/backend.ts), else the same loops as a kernel. Nothing is allocated per key.
 * {@link BloomEngine} adds the set algebra and bytes.
 */
export class SlotEngine<S extends FilterStore<S>> {
  /** m: the filter's bits (its counters, for counting). */
  readonly bits: number;
  /** k: slots a key marks. */
  readonly hashes: number;
  /** The hash seed, an unsigned 32-bit integer. */
  readonly seed: number;
  /** The keys `create` sized it for; undefined when built from bits and hashes. */
  readonly capacity: number | undefined;
  /** The target rate `create` sized it for; undefined when built from bits and hashes. */
  readonly fpr: number | undefined;
  /** The bits or counters. */
  protected readonly store: S;
  /** The format kind: name, layout, counter widths. */
  protected readonly kind: KindRecord;
  /** Adds that returned true (saturating at 2^53 − 1). */
  protected counted: number;
  /** Where positions fall (FORMAT.md §5), from the layout: offsets in [0, range), interval i at i·stride. */
  protected readonly geometry: Geometry;
  /**
   * The two layout numbers a batch kernel's entries take (blocked: the block scale and the shift of an offset in a
   * block; else the reduction's scale and the stride between slices).
   */
  private readonly kernelScale: number;
  private readonly kernelStep: number;
  /**
   * The batch kernel over this filter's bits or counters, when they live in a kernel memory (new-bit-array.ts,
   * new-counter-array.ts; kernel/bit-kernels.ts says which). Measured on 10^6 flat URL keys, one process,
   * interleaved: blocked hasMany (1.2 MB of bits) 102–129 ns a key against 125–163 in the JavaScript loops, the
   * hash (~50 ns) included; counting (4.8 MB of 4-bit counters) addAll 8.95 M keys/s against 5.15, hasMany
   * 9.24 / 8.99 (hits / misses) against 5.62 / 6.53.
   */
  private readonly kernel: KernelChoice<BatchKernel>;
  /** The JavaScript loops: every single-key add and has, and the batches without a WebAssembly kernel. */
  private readonly loops: LoopKernel;
  /** h1..h4 of the key being added or looked up. */
  private readonly hash = new Int32Array(4);
  private readonly addWhere: string;
  private readonly hasWhere: string;
  /** The single-hash entries' names for their refusals, made once (a string built per call is garbage per key). */
  private readonly addHashWhere: string;
  private readonly hasHashWhere: string;
  /** The file this filter works on in place (read with `copy: false` from one array), else undefined. */
  protected readonly inPlace: Uint8Array | undefined;

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
    const scale = narrowScale(geometry.range);
    const blocks = geometry.blocks ?? 1;
    const blockScale = blocks > 1 ? narrowScale(blocks) : 0;
    const blockShift =
      blocks > 1 && store.bitBytes !== undefined && Number.isInteger(Math.log2(geometry.range))
        ? 32 - Math.log2(geometry.range)
        : 0;
    const narrow = geometry.range <= NARROW_LIMIT;
    const blocked = blockShift === KERNEL_SHIFT;
    this.kernelScale = blocked ? blockScale : scale;
    this.kernelStep = blocked ? blockShift : geometry.stride;
    this.addWhere = `${kind.className}.add`;
    this.hasWhere = `${kind.className}.has`;
    this.addHashWhere = `${kind.className}.addHash`;
    this.hasHashWhere = `${kind.className}.hasHash`;
    this.inPlace = state.inPlace;
    this.loops = new LoopKernel({
      store: store as FilterStore<unknown>,
      geometry,
      hashes: shape.hashes,
      scale,
      stride: geometry.stride,
      blockScale,
      blockBits: geometry.range,
      blockShift,
      narrow,
    });
    this.kernel = new KernelChoice(() =>
      bitKernelFor({
        bitBytes: store.bitBytes,
        counterBits: store.counterBits,
        pages: store.pages,
        hashes: shape.hashes,
        narrow,
        blockScale,
        blockShift,
      }),
    );
  }

  /** Adds that returned true: the distinct keys added, less those that looked present already (false positives). */
  get count(): number {
    return this.counted;
  }

  /** Adds `key`; true when it was not in the filter before (at least one slot was empty). */
  add(key: Key): boolean {
    hashInto(key, this.seed, this.hash, this.addWhere);
    return this.markAt(this.hash, 0);
  }

  /** True when `key` may be in the filter; false when it certainly is not. */
  has(key: Key): boolean {
    hashInto(key, this.seed, this.hash, this.hasWhere);
    return this.probeAt(this.hash, 0);
  }

  /**
   * `add` for a key already hashed: `hash` holds h1..h4 of the key with this filter's seed, as `hashInto` writes
   * them (`@bloomkit/core/kit`). Lets filters that share a seed (the sub-filters of a scalable filter) share
   * one hash per key.
   */
  addHash(hash: Int32Array): boolean {
    checkHashAt(this.addHashWhere, hash, 0);
    return this.markAt(hash, 0);
  }

  /** `has` for a key already hashed with this filter's seed (see {@link addHash}). */
  hasHash(hash: Int32Array): boolean {
    checkHashAt(this.hasHashWhere, hash, 0);
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
    this.batch(hashes, count, false, answers);
  }

  /** Touches, then marks, `count` hashed keys in order; answers as {@link addHashes}. */
  private markBatch(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    const added = this.batch(hashes, count, true, answers);
    this.counted = Math.min(Number.MAX_SAFE_INTEGER, this.counted + added);
    return added;
  }

  /** `has` for each key of an array (checked whole first), a batch at a time as in {@link addAll}. */
  hasMany(keys: readonly Key[]): boolean[] {
    const list = keyList(`${this.kind.className}.hasMany`, keys);
    const out = new Array<boolean>(list.length);
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, this.hasWhere);
      this.batch(batchHashes(), count, false, batchAnswers);
      for (let j = 0; j < count; j++) out[start + j] = batchAnswers[j] === 1;
      start += count;
    }
    return out;
  }

  /**
   * Marks or probes a batch of hashed keys on the filter's batch kernel (WebAssembly while the switch allows and
   * it has one, else its loops); answers and count as {@link BatchKernel.run}.
   */
  private batch(hashes: Int32Array, count: number, mark: boolean, answers: Uint8Array | undefined): number {
    this.checkAttached();
    const kernel = this.kernel.get() ?? this.loops;
    return kernel.run(hashes, count, mark, answers, this.kernelScale, this.kernelStep, this.hashes);
  }

  /** Marks the k slots of the key whose h1..h4 are `hash[at .. at + 3]`; true (and `count` + 1) when one was empty. */
  private markAt(hash: Int32Array, at: number): boolean {
    if (!this.loops.markKey(hash, at)) return false;
    this.checkAttached();
    if (this.counted < Number.MAX_SAFE_INTEGER) this.counted++;
    return true;
  }

  /** True when all k slots of the key whose h1..h4 are `hash[at .. at + 3]` are set. */
  private probeAt(hash: Int32Array, at: number): boolean {
    if (this.loops.probeKey(hash, at)) return true;
    this.checkAttached();
    return false;
  }

  /** Refuses storage whose buffer was detached (validate.ts): where a key is answered absent or new, and a batch. */
  private checkAttached(): void {
    checkAttached(this.kind.className, this.store.pages[0]!);
  }
}
