import { CapacityError } from './capacity-error.js';
import { fingerprintOf, firstBucket, otherBucket } from './cuckoo-hash.js';
import type { CuckooProbe } from './cuckoo-probe.js';
import type { CuckooWalk } from './cuckoo-walk.js';
import type { SlotTable } from './slot-table.js';

/**
 * A cuckoo filter's adds of keys already hashed (docs/FORMAT.md §3.9, "Adding"): step 1, the first empty slot of
 * the key's buckets, and step 2, the walk when both are full, with an undo log (cuckoo-walk.ts). Where the table
 * lies in a kernel memory and core's switch is 'auto', cuckoo.wat takes a single add's step 1 (its walk here) and
 * a batch's both steps, a call of up to `keysPerCall` keys (its log copied into the walk's); else JavaScript.
 * Either way the same bytes (test/cuckoo-kernel.spec.ts). A key that finds no room is a CapacityError with nothing changed: the walk undone,
 * and in a batch every key of the call taken back.
 */
export class CuckooAdder {
  private readonly modulus: number;

  constructor(
    private readonly table: SlotTable,
    private readonly walk: CuckooWalk,
    private readonly probe: CuckooProbe,
    private readonly buckets: number,
    private readonly bucketSize: number,
    /** The filter's capacity, for a refusal's message. */
    private readonly capacity: number,
    private readonly where: string,
  ) {
    this.modulus = 2 ** table.fingerprintBits - 1;
  }

  /**
   * Adds one copy of the hashed key (h1..h4 at hash[at .. at + 3]); true when it was absent before. A refusal
   * counts the slots filled when the key found no room.
   */
  one(hash: Int32Array, at: number): boolean {
    this.walk.beginOne();
    const placed = this.probe.placeFirst(hash, at);
    if (placed >= 0 && (placed & 1) === 1) return (placed & 2) !== 0;
    return this.insert(hash, at);
  }

  /**
   * Adds `count` hashed keys in order (key j's h1..h4 at hashes[4j .. 4j + 3]), whole or nothing: `answers[j]` 1
   * when key j was absent before; returns how many were. On a CapacityError every key of the call is taken back.
   */
  run(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    this.begin();
    try {
      return this.add(hashes, count, answers);
    } catch (error) {
      this.undo();
      throw error;
    } finally {
      this.end();
    }
  }

  /** Starts a batch that {@link undo} takes back whole (of one or more {@link add} calls). */
  begin(): void {
    this.walk.begin();
  }

  /** Takes back every key added since {@link begin}. */
  undo(): void {
    this.walk.undo();
  }

  /** Ends a batch, kept or taken back: what it logged is let go (CuckooWalk.end). */
  end(): void {
    this.walk.end();
  }

  /**
   * Adds `count` hashed keys in order within a batch, logged: on cuckoo.wat's `placeRun` a call at a time (its
   * walks too, its log copied into the walk's after each call), a key it stops at here. `answers[j]` 1 when key j
   * was absent before; returns how many were.
   */
  add(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    const kernel = this.probe.kernel();
    if (kernel === null) return this.insertEach(hashes, 0, count, answers);
    const f = this.table.fingerprintBits;
    const maxKicks = this.walk.maxKicks;
    let fresh = 0;
    for (let done = 0; done < count; done += kernel.keysPerCall) {
      const n = Math.min(kernel.keysPerCall, count - done);
      kernel.hashes.set(hashes.subarray(4 * done, 4 * (done + n)));
      for (let from = 0; from < n; ) {
        kernel.logCount[0] = 0;
        const stop = kernel.placeRun(from, n, this.buckets, this.bucketSize, f, maxKicks, kernel.table);
        this.walk.logAll(kernel.log, kernel.logCount[0]!);
        for (let j = from; j < stop; j++) fresh += kernel.answers[j]!;
        if (answers !== undefined) answers.set(kernel.answers.subarray(from, stop), done + from);
        // The key it stopped at (nothing written for it: its walk failed, or the kernel's log was near full): here.
        if (stop < n) fresh += this.insertEach(hashes, done + stop, done + stop + 1, answers);
        from = stop + 1;
      }
    }
    return fresh;
  }

  /** Adds hashed keys from..to − 1 in JavaScript, logged in a batch; returns how many were absent before. */
  private insertEach(hashes: Int32Array, from: number, to: number, answers: Uint8Array | undefined): number {
    let fresh = 0;
    for (let j = from; j < to; j++) {
      const yes = this.insert(hashes, 4 * j);
      if (yes) fresh++;
      if (answers !== undefined) answers[j] = yes ? 1 : 0;
    }
    return fresh;
  }

  /** Places one copy of the hashed key in JavaScript; true when it was absent before. */
  private insert(hash: Int32Array, at: number): boolean {
    const fp = fingerprintOf(hash[at + 1]!, this.modulus);
    const i1 = firstBucket(hash[at]!, this.buckets);
    const i2 = otherBucket(i1, fp, this.buckets);
    const b = this.bucketSize;
    const table = this.table;
    // One pass a bucket: whether fp is there already, and the first empty slot (step 1).
    const empty1 = table.scan(i1, b, fp);
    const seen1 = table.sawFingerprint;
    const empty2 = i2 === i1 ? empty1 : table.scan(i2, b, fp);
    const fresh = !seen1 && !table.sawFingerprint;
    if (empty1 >= 0) this.walk.placeAt(empty1, fp);
    else if (empty2 >= 0) this.walk.placeAt(empty2, fp);
    else this.kickOrRefuse(fp, i1, i2, hash[at + 2]!);
    return fresh;
  }

  /** Step 2, both buckets full: the walk, or a CapacityError with the walk undone. */
  private kickOrRefuse(fp: number, i1: number, i2: number, r: number): void {
    if (this.walk.kick(fp, i1, i2, r)) return;
    // The slots filled when the key found no room (the batch's keys before it included), counted before the undo.
    const filled = this.table.census().held;
    this.walk.undo();
    throw new CapacityError(
      `${this.where}: no room for the key after ${this.walk.maxKicks} kicks (${filled} of ${this.table.slots} slots hold fingerprints, capacity ${this.capacity}); nothing was changed`,
    );
  }
}
