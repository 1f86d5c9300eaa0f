import { type KernelScratch, KindKernelModule } from '@bloomkit/core/internal';
import { CUCKOO_WASM } from './cuckoo-wasm.js';

/** cuckoo.wat's undo log (placeRun's writes): where its events start, how many it holds, where their count is. */
const LOG_AT = 32768;
const LOG_EVENTS = 2048;
const LOG_COUNT_AT = 17408;

/** cuckoo.wat, compiled on first use. */
const CUCKOO = new KindKernelModule('cuckoo.wat', CUCKOO_WASM);

/**
 * A cuckoo filter's table as cuckoo.wat reads and fills it: core's kernel scratch (`KernelScratch`: the call's hash
 * and answer views, how many keys a call takes) with the batch lookup, and the one-key lookup and first step of an
 * add, which take the table's offset as their last argument (one call each, no global set first), and the batches'
 * adds and deletes. A single key's walk, the undo of a batch and single deletes stay on the table's own code
 * (slot-table.ts, cuckoo-walk.ts).
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
   * An add's steps 1 and 2 (the walk) for keys from..n − 1 of the scratch's hashes, in order, on the table at
   * `table`, each write logged in {@link log} (set {@link logCount} to 0 first); answers[j] = 1 when key j was absent
   * before. Returns the key it stopped at (nothing written for it: its walk failed, or the log might not hold it), or
   * n. A call from key 0 prepares the keys; a later one continues from there.
   */
  readonly placeRun: (
    from: number,
    n: number,
    buckets: number,
    size: number,
    fingerprintBits: number,
    maxKicks: number,
    table: number,
  ) => number;
  /**
   * A delete of each of keys 0..n − 1 of the scratch's hashes, in order, on the table at `table`: the first slot
   * holding the key's fingerprint in its first bucket, else its other one, cleared; answers[j] = 1 when key j's was.
   * Returns how many were.
   */
  readonly removeRun: (
    n: number,
    buckets: number,
    size: number,
    fingerprintBits: number,
    table: number,
  ) => number;
  /** placeRun's log: event e is (slot, the value it held before) at [2e, 2e + 1]. */
  readonly log: Float64Array;
  /** How many events the log holds: [0]. */
  readonly logCount: Int32Array;
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
    placeRun: instance.exports.placeRun as CuckooKernel['placeRun'],
    removeRun: instance.exports.removeRun as CuckooKernel['removeRun'],
    log: new Float64Array(instance.hashes.buffer, LOG_AT, 2 * LOG_EVENTS),
    logCount: new Int32Array(instance.hashes.buffer, LOG_COUNT_AT, 1),
    holds: instance.exports.holds as CuckooKernel['holds'],
    place: instance.exports.place as CuckooKernel['place'],
    table: instance.offset,
  };
}
