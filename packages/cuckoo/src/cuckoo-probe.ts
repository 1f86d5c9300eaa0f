import { KernelChoice } from '@bloomkit/core/internal';
import { fingerprintOf, firstBucket, otherBucket } from './cuckoo-hash.js';
import type { SlotTable } from './slot-table.js';
import { type CuckooKernel, cuckooKernel } from './wasm/cuckoo-instance.js';

/**
 * A cuckoo filter's reads of keys already hashed (h1..h4 as `hashInto` writes them): whether one may be in
 * ({@link mayHold}), where its first copy is ({@link slotOf}, for a delete), how many copies it has
 * ({@link copiesOf}); and the batch lookup ({@link run}), which runs cuckoo.wat instead where the table lies in a
 * kernel memory and core's switch is 'auto' (the one choice every kind's batches make).
 */
export class CuckooProbe {
  private readonly table: SlotTable;
  private readonly buckets: number;
  private readonly size: number;
  private readonly modulus: number;
  private readonly kernel: KernelChoice<CuckooKernel>;

  constructor(table: SlotTable, buckets: number, size: number) {
    this.table = table;
    this.buckets = buckets;
    this.size = size;
    this.modulus = 2 ** table.fingerprintBits - 1;
    this.kernel = new KernelChoice(() => cuckooKernel(table.bytes));
  }

  /**
   * True when the key hashed at `hash[at .. at + 3]` may be in the table: its fingerprint in either of its buckets
   * (docs/FORMAT.md §3.9; cuckoo-hash.ts), both read whole with no branch on their slots.
   */
  mayHold(hash: Int32Array, at: number): boolean {
    const fp = fingerprintOf(hash[at + 1]!, this.modulus);
    const i1 = firstBucket(hash[at]!, this.buckets);
    return this.table.holdsEither(i1, otherBucket(i1, fp, this.buckets), this.size, fp);
  }

  /** The first slot holding the hashed key's fingerprint, in its first bucket and then its other one; else −1. */
  slotOf(hash: Int32Array, at: number): number {
    const fp = fingerprintOf(hash[at + 1]!, this.modulus);
    const i1 = firstBucket(hash[at]!, this.buckets);
    const slot = this.table.find(i1, this.size, fp);
    return slot >= 0 ? slot : this.table.find(otherBucket(i1, fp, this.buckets), this.size, fp);
  }

  /** Copies of the hashed key's fingerprint in its two buckets (one bucket, counted once, when they are the same). */
  copiesOf(hash: Int32Array, at: number): number {
    const fp = fingerprintOf(hash[at + 1]!, this.modulus);
    const i1 = firstBucket(hash[at]!, this.buckets);
    const i2 = otherBucket(i1, fp, this.buckets);
    const table = this.table;
    return table.countIn(i1, this.size, fp) + (i2 === i1 ? 0 : table.countIn(i2, this.size, fp));
  }

  /**
   * `answers[to + j]` = 1 when hashed key j (at `hashes[4j .. 4j + 3]`) may be in the table, else 0, for j < count.
   * On cuckoo.wat its calls of `keysPerCall` keys each copy their hashes into the kernel's scratch first.
   */
  run(hashes: Int32Array, count: number, answers: Uint8Array, to = 0): void {
    const kernel = this.kernel.get();
    if (kernel === null) {
      for (let j = 0; j < count; j++) answers[to + j] = this.mayHold(hashes, 4 * j) ? 1 : 0;
      return;
    }
    const f = this.table.fingerprintBits;
    for (let done = 0; done < count; done += kernel.keysPerCall) {
      const n = Math.min(kernel.keysPerCall, count - done);
      kernel.hashes.set(hashes.subarray(4 * done, 4 * (done + n)));
      kernel.probe(n, this.buckets, this.size, f);
      answers.set(kernel.answers.subarray(0, n), to + done);
    }
  }
}
