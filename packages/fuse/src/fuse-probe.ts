import { KernelChoice } from '@bloomkit/core/internal';
import type { FuseLayout } from './fuse-layout.js';
import { mulHigh32 } from './u64.js';
import { type FuseKernel, fuseKernel } from './wasm/fuse-instance.js';

/**
 * A binary fuse filter's lookup of 64-bit keys (a key's first two MurmurHash3 words, or a caller's hash): one key
 * ({@link contains}) and a batch ({@link run}). Both run fuse.wat where the fingerprints lie in a kernel memory and
 * core's switch is 'auto' (the one choice every kind's batches make), else the one JavaScript copy of the rule
 * ({@link javascriptContains}: fuse-hash.ts's arithmetic written out).
 */
export class FuseProbe {
  private readonly layout: FuseLayout;
  private readonly seedHigh: number;
  private readonly seedLow: number;
  private readonly fingerprints: Uint8Array | Uint16Array;
  private readonly mask: number;
  /** 1 for 16-bit fingerprints, 0 for 8-bit: fuse.wat's `wide`. */
  private readonly wide: number;
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
    this.wide = this.mask === 0xffff ? 1 : 0;
    this.kernel = new KernelChoice(() => fuseKernel(bytes));
  }

  /**
   * True when the 64-bit key high:low (int32 words) may be in the set: its fingerprint XOR its three slots' is 0.
   * Where the fingerprints lie in a kernel memory and core's switch is 'auto', fuse.wat's `contains` answers in one
   * call (a lookup's fuse part 23 → 9 ns, 1M keys over a 1.1 MB table, one process); else {@link javascriptContains}.
   */
  contains(high: number, low: number): boolean {
    const kernel = this.kernel.get();
    if (kernel === null) return this.javascriptContains(high, low);
    const layout = this.layout;
    return (
      kernel.contains(
        high,
        low,
        this.seedHigh,
        this.seedLow,
        layout.segmentCountLength,
        layout.segmentLength,
        layout.segmentLengthMask,
        this.wide,
        kernel.table,
      ) === 1
    );
  }

  /**
   * {@link contains} in JavaScript: fuse-hash.ts's mixKey and slotsOf written out with local words instead of
   * u64.ts's OUT pair, which a lookup would otherwise write and read back five times (the fuse part of a lookup about
   * 20% faster, A/B in one process; test/fuse-kernel.spec.ts holds it to mixKey and slotsOf).
   */
  javascriptContains(high: number, low: number): boolean {
    // key + seed, mod 2^64
    const sum = (low >>> 0) + (this.seedLow >>> 0);
    let l = sum | 0;
    let h = (high + this.seedHigh + (sum > 0xffffffff ? 1 : 0)) | 0;
    // fmix64: h ^= h >> 33; h *= 0xff51afd7ed558ccd; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53; h ^= h >> 33
    l ^= h >>> 1;
    let product = mulHigh32(l, 0xed558ccd) + Math.imul(h, 0xed558ccd | 0) + Math.imul(l, 0xff51afd7 | 0);
    l = Math.imul(l, 0xed558ccd | 0);
    h = product | 0;
    l ^= h >>> 1;
    product = mulHigh32(l, 0x1a85ec53) + Math.imul(h, 0x1a85ec53) + Math.imul(l, 0xc4ceb9fe | 0);
    l = Math.imul(l, 0x1a85ec53);
    h = product | 0;
    l ^= h >>> 1;
    // The three slots (slotsOf): h0 the high 64 bits of hash × segmentCountLength.
    const { segmentCountLength: count, segmentLength: length, segmentLengthMask: mask } = this.layout;
    const carry = (Math.imul(h, count) >>> 0) + (mulHigh32(l, count) >>> 0);
    const h0 = ((mulHigh32(h, count) >>> 0) + (carry > 0xffffffff ? 1 : 0)) | 0;
    const h1 = (h0 + length) ^ ((((h & 0xf) << 14) | (l >>> 18)) & mask);
    const h2 = (h0 + 2 * length) ^ (l & mask);
    const fp = this.fingerprints;
    return (((l ^ h) & this.mask) ^ fp[h0]! ^ fp[h1]! ^ fp[h2]!) === 0;
  }

  /**
   * `answers[j]` = 1 when key j may be in the set, else 0, for j < count, its 64-bit key at `hashes[4j]` (low word)
   * and `hashes[4j + 1]` (high word), as `hashBatch` leaves a key's first two MurmurHash3 words. On fuse.wat its
   * calls of `keysPerCall` keys each copy their hashes into the kernel's scratch first.
   */
  run(hashes: Int32Array, count: number, answers: Uint8Array): void {
    const kernel = this.kernel.get();
    if (kernel === null) {
      for (let j = 0; j < count; j++)
        answers[j] = this.javascriptContains(hashes[4 * j + 1]!, hashes[4 * j]!) ? 1 : 0;
      return;
    }
    const layout = this.layout;
    const wide = this.wide;
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
