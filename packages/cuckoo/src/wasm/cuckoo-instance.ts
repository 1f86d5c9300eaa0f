import { type KernelScratch, KindKernelModule } from '@bloomkit/core/internal';
import { CUCKOO_WASM } from './cuckoo-wasm.js';

/** Where cuckoo.wat's placeRun leaves the slot of each key it placed: an f64 a key, after the probe's scratch. */
const PLACED_AT = 32768;

/** cuckoo.wat, compiled on first use. */
const CUCKOO = new KindKernelModule('cuckoo.wat', CUCKOO_WASM);

/**
 * A cuckoo filter's table as cuckoo.wat reads and fills it: core's kernel scratch (`KernelScratch`: the call's hash
 * and answer views, how many keys a call takes) with the batch lookup, and the one-key lookup and first step of an
 * add, which take the table's offset as their last argument (one call each, no global set first). A walk, its undo
 * and deletes stay on the table's own code (slot-table.ts, cuckoo-walk.ts).
 */
export interface CuckooKernel extends KernelScratch {
  /** answers[j] = 1 when key j may be in the filter, else 0, j < n ≤ keysPerCall; returns how many 1s. */
  probe(n: number, buckets: number, size: number, fingerprintBits: number): number;
  /** 1 when the key hashed to h1, h2 may be in the filter, else 0. */
  readonly holds: (h1: number, h2: number, buckets: number, size: number, f: number, table: number) => number;
  /**
   * The key's fingerprint into the first empty slot of its first bucket, else of its other one: bit 0 of the result
   * set when placed (else nothing was written), bit 1 when neither bucket held the fingerprint before.
   */
  readonly place: (h1: number, h2: number, buckets: number, size: number, f: number, table: number) => number;
  /**
   * `place` for keys from..n − 1 of the scratch's hashes, in order, stopping at the first whose buckets are both
   * full (nothing written for it); answers[j] = 1 when key j was absent before, {@link placed}[j] the slot it took.
   * Returns the key it stopped at, or n.
   */
  placeRun(from: number, n: number, buckets: number, size: number, fingerprintBits: number): number;
  /** The slot each key of a `placeRun` call took: placed[j] for key j. */
  readonly placed: Float64Array;
  /** Where the table starts in the kernel memory: the last argument of `holds` and `place`. */
  readonly table: number;
}

/**
 * The kernel of a cuckoo filter whose table bytes lie in a kernel memory (`newKernelBytes` of
 * `@bloomkit/core/internal` put them there); else undefined (a plain array, a view of a caller's file read in place,
 * or a module that does not compile here).
 */
export function cuckooKernel(table: Uint8Array): CuckooKernel | undefined {
  const instance = CUCKOO.over(table);
  if (instance === undefined) return undefined;
  return {
    hashes: instance.hashes,
    answers: instance.answers,
    keysPerCall: instance.answers.length,
    probe: KindKernelModule.entry(instance, 'probe'),
    placeRun: KindKernelModule.entry(instance, 'placeRun'),
    placed: new Float64Array(instance.hashes.buffer, PLACED_AT, instance.answers.length),
    holds: instance.exports.holds as CuckooKernel['holds'],
    place: instance.exports.place as CuckooKernel['place'],
    table: instance.offset,
  };
}
