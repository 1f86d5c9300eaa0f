import { KernelChoice } from '@bloomkit/core/internal';
import { mixKey, slotsOf } from './fuse-hash.js';
import type { FuseLayout } from './fuse-layout.js';
import { OUT } from './u64.js';
import { type FuseKernel, fuseKernel } from './wasm/fuse-instance.js';

/**
 * A binary fuse filter's lookup of 64-bit keys (a key's first two MurmurHash3 words, or a caller's hash): the one
 * JavaScript copy of the rule ({@link contains}, fuse-hash.ts), and the batch lookup ({@link run}), which runs
 * fuse.wat instead where the fingerprints lie in a kernel memory and core's switch is 'auto' (the one choice every
 * kind's batches make).
 */
export class FuseProbe {
  private readonly layout: FuseLayout;
  private readonly seedHigh: number;
  private readonly seedLow: number;
  private readonly fingerprints: Uint8Array | Uint16Array;
  private readonly mask: number;
  /** A key's three slots, reused by every lookup. */
  private readonly slots = new Uint32Array(3);
  private readonly kernel: KernelChoice<FuseKernel>;

  /** `bytes` are the fingerprints' own bytes as allocated (the kernel knows a kernel memory's views by identity). */
  constructor(
    layout: FuseLayout,
    seedHigh: number,
    seedLow: number,
    fingerprints: Uint8Array | Uint16Array,
    bytes: Uint8Array,
  ) {
    this.layout = layout;
    this.seedHigh = seedHigh;
    this.seedLow = seedLow;
    this.fingerprints = fingerprints;
    this.mask = fingerprints instanceof Uint8Array ? 0xff : 0xffff;
    this.kernel = new KernelChoice(() => fuseKernel(bytes));
  }

  /** True when the 64-bit key high:low (int32 words) may be in the set: its fingerprint XOR its three slots' is 0. */
  contains(high: number, low: number): boolean {
    mixKey(high, low, this.seedHigh, this.seedLow);
    const h = OUT[0]!;
    const l = OUT[1]!;
    const slots = this.slots;
    slotsOf(this.layout, h, l, slots);
    const fp = this.fingerprints;
    return (((l ^ h) & this.mask) ^ fp[slots[0]!]! ^ fp[slots[1]!]! ^ fp[slots[2]!]!) === 0;
  }

  /**
   * `answers[j]` = 1 when key j may be in the set, else 0, for j < count, its 64-bit key at `hashes[4j]` (low word)
   * and `hashes[4j + 1]` (high word), as `hashBatch` leaves a key's first two MurmurHash3 words. On fuse.wat its
   * calls of `keysPerCall` keys each copy their hashes into the kernel's scratch first.
   */
  run(hashes: Int32Array, count: number, answers: Uint8Array): void {
    const kernel = this.kernel.get();
    if (kernel === null) {
      for (let j = 0; j < count; j++) answers[j] = this.contains(hashes[4 * j + 1]!, hashes[4 * j]!) ? 1 : 0;
      return;
    }
    const layout = this.layout;
    const wide = this.mask === 0xffff ? 1 : 0;
    for (let done = 0; done < count; done += kernel.keysPerCall) {
      const n = Math.min(kernel.keysPerCall, count - done);
      kernel.hashes.set(hashes.subarray(4 * done, 4 * (done + n)));
      kernel.probe(
        n,
        this.seedHigh,
        this.seedLow,
        layout.segmentCountLength,
        layout.segmentLength,
        layout.segmentLengthMask,
        wide,
      );
      answers.set(kernel.answers.subarray(0, n), done);
    }
  }
}
