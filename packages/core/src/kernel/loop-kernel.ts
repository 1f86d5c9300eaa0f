import { derivePositions, type Geometry } from '../positions.js';
import type { FilterStore } from '../storage.js';
import { type BatchKernel, KERNEL_KEYS } from '../wasm/kernel-memory.js';
import { TOUCH_FROM_BYTES, touchFirstSlots } from './bit-kernels.js';
import { blockedSlots, strideSlots } from './slot-loops.js';

/** What the loops read of a single filter: its store and the layout numbers the engine derived from its shape. */
export interface LoopTarget {
  readonly store: FilterStore<unknown>;
  readonly geometry: Geometry;
  /** k. */
  readonly hashes: number;
  /** σ = range × 2^-32 for the narrow reduction (narrow.ts). */
  readonly scale: number;
  readonly stride: number;
  /** Blocked geometry: blocks × 2^-32 (0 when there is one block) and the bits per block. */
  readonly blockScale: number;
  readonly blockBits: number;
  /** 32 − log2(B) for a blocked one-page bit store whose blocks are a power of two, else 0. */
  readonly blockShift: number;
  /** Every range ≤ 2^32 (the narrow path). */
  readonly narrow: boolean;
}

/** The loop kernels' hashes and answers: one pair for all (a batch runs to its end before another starts). */
let sharedHashes: Int32Array | undefined;
let sharedAnswers: Uint8Array | undefined;

/**
 * A single filter's JavaScript loops (slot-loops.ts) as a {@link BatchKernel}: what a filter's batches run on when
 * it has no WebAssembly kernel (bits outside a kernel memory, paged or wide stores, WebAssembly refused, or the
 * switch forced to 'javascript'), and what its single-key `add` and `has` run on always. A batch on the loops first
 * touches each key's first line from {@link TOUCH_FROM_BYTES} (bit-kernels.ts), then marks or probes the keys in
 * order. `run` works on the caller's hashes and answers where they lie; `probe` and `mark` on the kernel's own, as
 * the WebAssembly kernels' do. Nothing is allocated per key.
 */
export class LoopKernel implements BatchKernel {
  readonly keysPerCall: number = KERNEL_KEYS;
  // The target's numbers, each a field of this class (one load from `this` in the loops, not two).
  private readonly store: FilterStore<unknown>;
  private readonly geometry: Geometry;
  private readonly k: number;
  private readonly scale: number;
  private readonly stride: number;
  private readonly blockScale: number;
  private readonly blockBits: number;
  private readonly blockShift: number;
  private readonly narrow: boolean;
  private readonly bitBytes: Uint8Array | undefined;
  private readonly nibbleBytes: Uint8Array | undefined;
  /** Positions for the wide path (range > 2^32), allocated on first use. */
  private wide: Float64Array | undefined;
  /** What the touch pass read: written so its loads are kept, never read. */
  touched = 0;

  constructor(target: LoopTarget) {
    this.store = target.store;
    this.geometry = target.geometry;
    this.k = target.hashes;
    this.scale = target.scale;
    this.stride = target.stride;
    this.blockScale = target.blockScale;
    this.blockBits = target.blockBits;
    this.blockShift = target.blockShift;
    this.narrow = target.narrow;
    this.bitBytes = target.store.bitBytes;
    this.nibbleBytes = target.store.nibbleBytes;
  }

  get hashes(): Int32Array {
    sharedHashes ??= new Int32Array(4 * KERNEL_KEYS);
    return sharedHashes;
  }

  get answers(): Uint8Array {
    sharedAnswers ??= new Uint8Array(KERNEL_KEYS);
    return sharedAnswers;
  }

  probe(n: number): number {
    return this.run(this.hashes, n, false, this.answers);
  }

  mark(n: number): number {
    return this.run(this.hashes, n, true, this.answers);
  }

  run(hashes: Int32Array, count: number, mark: boolean, answers: Uint8Array | undefined): number {
    this.touch(hashes, count);
    let total = 0;
    if (mark) {
      for (let j = 0; j < count; j++) {
        const fresh = this.markKey(hashes, j * 4);
        if (fresh) total++;
        if (answers !== undefined) answers[j] = fresh ? 1 : 0;
      }
    } else {
      for (let j = 0; j < count; j++) {
        const present = this.probeKey(hashes, j * 4);
        if (present) total++;
        if (answers !== undefined) answers[j] = present ? 1 : 0;
      }
    }
    return total;
  }

  // markKey and probeKey each call the loops with a constant `mark`: one method taking `mark` (the two merged) made
  // single-key has 3–6% slower (interleaved, old and new builds, 10^5 and 10^6 URL keys, five runs).

  /** Marks the k slots of the key whose h1..h4 are `hash[at .. at + 3]`; true when one was empty. */
  markKey(hash: Int32Array, at: number): boolean {
    if (this.blockShift !== 0) {
      const bytes = this.bitBytes!;
      return (
        blockedSlots(
          bytes,
          hash,
          at,
          this.k,
          this.blockShift,
          this.blockScale,
          this.blockBits >>> 3,
          true,
        ) !== 0
      );
    }
    if (this.narrow) {
      const fresh = strideSlots(
        this.bitBytes,
        this.nibbleBytes,
        this.store,
        hash,
        at,
        this.k,
        this.scale,
        this.stride,
        this.blockScale,
        this.blockBits,
        true,
      );
      return fresh !== 0;
    }
    const positions = this.widePositions(hash, at);
    let fresh = 0;
    for (let i = 0; i < this.k; i++) fresh |= this.store.mark(positions[i]!);
    return fresh !== 0;
  }

  /** True when all k slots of the key whose h1..h4 are `hash[at .. at + 3]` are set; stops at the first empty one. */
  probeKey(hash: Int32Array, at: number): boolean {
    if (this.blockShift !== 0) {
      const bytes = this.bitBytes!;
      return (
        blockedSlots(
          bytes,
          hash,
          at,
          this.k,
          this.blockShift,
          this.blockScale,
          this.blockBits >>> 3,
          false,
        ) !== 0
      );
    }
    if (this.narrow) {
      const present = strideSlots(
        this.bitBytes,
        this.nibbleBytes,
        this.store,
        hash,
        at,
        this.k,
        this.scale,
        this.stride,
        this.blockScale,
        this.blockBits,
        false,
      );
      return present !== 0;
    }
    const positions = this.widePositions(hash, at);
    for (let i = 0; i < this.k; i++) if (!this.store.get(positions[i]!)) return false;
    return true;
  }

  /** The touch pass before a batch: one page of bits from its threshold, on the narrow path. */
  private touch(hashes: Int32Array, count: number): void {
    const bytes = this.bitBytes;
    if (bytes === undefined || !this.narrow || bytes.length < TOUCH_FROM_BYTES) return;
    this.touched = touchFirstSlots(bytes, hashes, count, this.scale, this.blockScale, this.blockBits);
  }

  private widePositions(hash: Int32Array, at: number): Float64Array {
    if (this.wide === undefined) this.wide = new Float64Array(this.k);
    derivePositions(at === 0 ? hash : hash.subarray(at, at + 4), this.geometry, this.k, this.wide, 0);
    return this.wide;
  }
}
