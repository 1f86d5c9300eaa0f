import { KernelChoice } from '@bloomkit/core/internal';
import { fingerprintOf, firstBucket, otherBucket } from './cuckoo-hash.js';
import type { SlotTable } from './slot-table.js';
import { type CuckooKernel, cuckooKernel } from './wasm/cuckoo-instance.js';

/**
 * A cuckoo filter's reads of keys already hashed (h1..h4 as `hashInto` writes them): whether one may be in
 * ({@link mayHold}), where its first copy is ({@link slotOf}, for a delete), how many copies it has
 * ({@link copiesOf}); the batch lookup ({@link run}); and on the kernel, an add's first step ({@link placeFirst})
 * and a batch's deletes ({@link removeRun}). The lookups and those run cuckoo.wat where the table lies in a kernel
 * memory and core's switch is 'auto' (the one choice every kind's batches make), else JavaScript (cuckoo-hash.ts,
 * slot-table.ts).
 */
export class CuckooProbe {
  private readonly table: SlotTable;
  private readonly buckets: number;
  private readonly size: number;
  private readonly modulus: number;
  private readonly choice: KernelChoice<CuckooKernel>;

  constructor(table: SlotTable, buckets: number, size: number) {
    this.table = table;
    this.buckets = buckets;
    this.size = size;
    this.modulus = 2 ** table.fingerprintBits - 1;
    this.choice = new KernelChoice(() => cuckooKernel(table.bytes));
  }

  /**
   * True when the key hashed at `hash[at .. at + 3]` may be in the table: its fingerprint in either of its buckets
   * (docs/FORMAT.md §3.9; cuckoo-hash.ts), both read whole with no branch on their slots.
   */
  mayHold(hash: Int32Array, at: number): boolean {
    const kernel = this.choice.get();
    if (kernel !== null) {
      const table = this.table;
      return (
        kernel.holds(
          hash[at]!,
          hash[at + 1]!,
          this.buckets,
          this.size,
          table.fingerprintBits,
          kernel.table,
        ) === 1
      );
    }
    return this.javascriptMayHold(hash, at);
  }

  /** {@link mayHold} in JavaScript. */
  javascriptMayHold(hash: Int32Array, at: number): boolean {
    const fp = fingerprintOf(hash[at + 1]!, this.modulus);
    const i1 = firstBucket(hash[at]!, this.buckets);
    return this.table.holdsEither(i1, otherBucket(i1, fp, this.buckets), this.size, fp);
  }

  /** The table's kernel for this call (cuckoo.wat over its kernel memory), or null for the JavaScript path. */
  kernel(): CuckooKernel | null {
    return this.choice.get();
  }

  /**
   * Step 1 of adding the hashed key (cuckoo-walk.ts) on cuckoo.wat: its fingerprint into the first empty slot of
   * its first bucket, else of its other one. Bit 0 of the result is set when it was placed (else nothing was written:
   * both buckets are full), bit 1 when neither bucket held the fingerprint before; −1, nothing done, where the table
   * is not on the kernel (the caller then takes the JavaScript path). The write is not logged: for an add that a
   * walk's failure alone can take back.
   */
  placeFirst(hash: Int32Array, at: number): number {
    const kernel = this.choice.get();
    if (kernel === null) return -1;
    const f = this.table.fingerprintBits;
    return kernel.place(hash[at]!, hash[at + 1]!, this.buckets, this.size, f, kernel.table);
  }

  /** The first slot holding the hashed key's fingerprint, in its first bucket and then its other one; else −1. */
  slotOf(hash: Int32Array, at: number): number {
    const fp = fingerprintOf(hash[at + 1]!, this.modulus);
    const i1 = firstBucket(hash[at]!, this.buckets);
    const slot = this.table.find(i1, this.size, fp);
    return slot >= 0 ? slot : this.table.find(otherBucket(i1, fp, this.buckets), this.size, fp);
  }

  /**
   * Deletes each hashed key (at `hashes[4j .. 4j + 3]`, j < count) in order on cuckoo.wat, as {@link slotOf} finds
   * and clears its slot: `answers[j]` 1 when key j's copy was removed (when given); returns how many were, or −1,
   * nothing done, where the table is not on the kernel.
   */
  removeRun(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    const kernel = this.choice.get();
    return kernel === null ? -1 : this.onKernel(kernel, true, hashes, count, answers, 0);
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
    const kernel = this.choice.get();
    if (kernel === null) {
      for (let j = 0; j < count; j++) answers[to + j] = this.javascriptMayHold(hashes, 4 * j) ? 1 : 0;
      return;
    }
    this.onKernel(kernel, false, hashes, count, answers, to);
  }

  /**
   * cuckoo.wat's batch lookup (`probe`) or deletes (`removeRun`) over hashed keys 0..count − 1, a call of up to
   * `keysPerCall` keys at a time, their hashes copied into the kernel's scratch first and its answers out to
   * `answers[to + j]` (when given); returns the answers' sum.
   */
  private onKernel(
    kernel: CuckooKernel,
    remove: boolean,
    hashes: Int32Array,
    count: number,
    answers: Uint8Array | undefined,
    to: number,
  ): number {
    const f = this.table.fingerprintBits;
    let total = 0;
    for (let done = 0; done < count; done += kernel.keysPerCall) {
      const n = Math.min(kernel.keysPerCall, count - done);
      kernel.hashes.set(hashes.subarray(4 * done, 4 * (done + n)));
      total += remove
        ? kernel.removeRun(n, this.buckets, this.size, f, kernel.table)
        : kernel.probe(n, this.buckets, this.size, f);
      if (answers !== undefined) answers.set(kernel.answers.subarray(0, n), to + done);
    }
    return total;
  }
}
