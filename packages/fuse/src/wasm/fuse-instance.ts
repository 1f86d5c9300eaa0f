import { type KernelScratch, KindKernelModule } from '@bloomkit/core/internal';
import { FUSE_WASM } from './fuse-wasm.js';

/** fuse.wat, compiled on first use. */
const FUSE = new KindKernelModule('fuse.wat', FUSE_WASM);

/**
 * The batch lookup of a binary fuse filter (fuse.wat) over its fingerprints: core's kernel scratch (`KernelScratch`:
 * the call's hash and answer views, how many keys a call takes) with one entry that takes the filter's seed and
 * layout.
 */
export interface FuseKernel extends KernelScratch {
  /** answers[j] = 1 when key j may be in the filter, else 0, j < n ≤ keysPerCall; returns how many 1s. */
  probe(
    n: number,
    seedHigh: number,
    seedLow: number,
    segmentCountLength: number,
    segmentLength: number,
    segmentLengthMask: number,
    wide: number,
  ): number;
  /**
   * 1 when the one key high:low may be in the filter, else 0: fuse.wat's `contains`, called as it is exported (its
   * last argument {@link table}, not the `bits` global, so a lookup is one call).
   */
  readonly contains: (
    high: number,
    low: number,
    seedHigh: number,
    seedLow: number,
    segmentCountLength: number,
    segmentLength: number,
    segmentLengthMask: number,
    wide: number,
    table: number,
  ) => number;
  /** Where the filter's fingerprints start in the kernel memory: `contains`' last argument. */
  readonly table: number;
}

/**
 * The kernel of a fuse filter whose fingerprint bytes lie in a kernel memory (`newKernelBytes` of
 * `@bloomkit/core/internal` put them there, as `build` and a copying `deserialize` do); else undefined (a plain
 * array, a file read in place, or a module that does not compile here).
 */
export function fuseKernel(fingerprints: Uint8Array): FuseKernel | undefined {
  const instance = FUSE.over(fingerprints);
  if (instance === undefined) return undefined;
  return {
    hashes: instance.hashes,
    answers: instance.answers,
    keysPerCall: instance.answers.length,
    probe: KindKernelModule.entry(instance, 'probe'),
    contains: instance.exports.contains as FuseKernel['contains'],
    table: instance.offset,
  };
}
