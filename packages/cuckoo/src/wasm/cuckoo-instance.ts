import { type KernelScratch, KindKernelModule } from '@bloomkit/core/internal';
import { CUCKOO_WASM } from './cuckoo-wasm.js';

/** cuckoo.wat, compiled on first use. */
const CUCKOO = new KindKernelModule('cuckoo.wat', CUCKOO_WASM);

/**
 * The batch lookup of a cuckoo filter (cuckoo.wat) over its table: core's kernel scratch (`KernelScratch`: the
 * call's hash and answer views, how many keys a call takes) with one entry that takes the table's shape. Adds and
 * deletes stay on the table's own code (slot-table.ts, cuckoo-walk.ts): an add may walk and be undone, which a
 * kernel would have to copy.
 */
export interface CuckooKernel extends KernelScratch {
  /** answers[j] = 1 when key j may be in the filter, else 0, j < n ≤ keysPerCall; returns how many 1s. */
  probe(n: number, buckets: number, size: number, fingerprintBits: number): number;
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
  };
}
