import { nextKick, otherBucket } from './cuckoo-hash.js';
import type { SlotTable } from './slot-table.js';

/**
 * Placing a fingerprint (docs/FORMAT.md §3.9, "Adding"), with an undo log so that a walk that finds no room, or a
 * batch that meets one, leaves the table exactly as it was.
 *
 * 1. The first empty slot of bucket i1, else of i2 (lowest slot first), takes fp.
 * 2. Else a walk from bucket i1 (h3 even) or i2 (h3 odd), with r = h3: up to `maxKicks` times, r ← 69069·r + 1
 *    mod 2^32, the fingerprint carried swaps with slot ⌊r / 2^16⌋ mod b of the bucket, the one taken out is
 *    carried to its other bucket (cuckoo-hash.ts), and the first empty slot there takes it, ending the walk.
 * 3. A walk that ends without room is undone, slot by slot, last first.
 */
export class CuckooWalk {
  /** Slots written since {@link begin}, and what each held before: (slot, old) pairs. */
  private log = new Float64Array(1024);
  private logged = 0;

  constructor(
    private readonly table: SlotTable,
    private readonly bucketSize: number,
    private readonly buckets: number,
    /** The longest walk before an add gives up. */
    readonly maxKicks: number,
  ) {}

  /** Whether slots filled by {@link placeAt} are logged: in a batch, which a later key's refusal takes back whole. */
  private batch = false;

  /** Starts a batch: a change that {@link undo} can take back whole. */
  begin(): void {
    this.logged = 0;
    this.batch = true;
  }

  /**
   * Ends a batch, kept or undone: its log is forgotten, and a log grown past 64 Ki entries (a batch of some ten
   * thousand keys or more: two entries a write) is let go, so a filter holds no batch's memory once the batch is
   * done (an addAll of 10^6 keys grew it to 4 Mi entries, 32 MB, which the filter held for life before).
   */
  end(): void {
    this.logged = 0;
    this.batch = false;
    if (this.log.length > 65536) this.log = new Float64Array(1024);
  }

  /**
   * Starts one add: a walk that fails undoes itself, and an empty slot filled is the add's only write, so
   * {@link placeAt} writes without logging (an add's cost saved on the path nearly every add takes).
   */
  beginOne(): void {
    this.logged = 0;
    this.batch = false;
  }

  /** Takes back every slot written since {@link begin}. */
  undo(): void {
    const log = this.log;
    for (let at = this.logged - 2; at >= 0; at -= 2) this.table.set(log[at]!, log[at + 1]!);
    this.logged = 0;
  }

  /** Places `fp` of a key with buckets `i1`, `i2` and walk seed `r`; false (and nothing placed) when full. */
  place(fp: number, i1: number, i2: number, r: number): boolean {
    if (this.placeIn(i1, fp) || this.placeIn(i2, fp)) return true;
    return this.kick(fp, i1, i2, r);
  }

  /**
   * Places every fingerprint of `source` (a table of the same shape) from the bucket it sits in, as if its keys
   * were added; false when one finds no room (the caller's copy is then thrown away).
   */
  placeAll(source: SlotTable): boolean {
    this.begin();
    try {
      for (let slot = 0; slot < source.slots; slot++) {
        const fp = source.get(slot);
        if (fp === 0) continue;
        const bucket = Math.floor(slot / this.bucketSize);
        // The walk's choices for a fingerprint without its key: seeded by its slot (any seed is correct).
        if (!this.place(fp, bucket, otherBucket(bucket, fp, this.buckets), slot >>> 0)) return false;
      }
      return true;
    } finally {
      this.end();
    }
  }

  /**
   * Logs writes the kernel made (cuckoo.wat's placeRun), for {@link undo}: `count` (slot, old value) pairs from
   * `events`, in the order they were made.
   */
  logAll(events: Float64Array, count: number): void {
    while (this.logged + 2 * count > this.log.length) this.grow();
    this.log.set(events.subarray(0, 2 * count), this.logged);
    this.logged += 2 * count;
  }

  /** Writes `fp` into the empty slot `slot`, logged in a batch. */
  placeAt(slot: number, fp: number): void {
    if (this.batch) this.write(slot, 0, fp);
    else this.table.set(slot, fp);
  }

  /** Step 2, when both buckets are full: the walk; false (and the walk undone) when it finds no room. */
  kick(fp: number, i1: number, i2: number, r: number): boolean {
    const start = this.logged;
    const table = this.table;
    const b = this.bucketSize;
    let carried = fp;
    let bucket = (r & 1) === 0 ? i1 : i2;
    let state = r >>> 0;
    for (let kick = 0; kick < this.maxKicks; kick++) {
      state = nextKick(state);
      const slot = bucket * b + ((state >>> 16) % b);
      const taken = table.get(slot);
      this.write(slot, taken, carried);
      carried = taken;
      bucket = otherBucket(bucket, carried, this.buckets);
      if (this.placeIn(bucket, carried)) return true;
    }
    this.undoTo(start);
    return false;
  }

  /** Puts `fp` in the first empty slot of `bucket`; false when it has none. */
  private placeIn(bucket: number, fp: number): boolean {
    const slot = this.table.scan(bucket, this.bucketSize, fp);
    if (slot < 0) return false;
    this.write(slot, 0, fp);
    return true;
  }

  /** Removes `fp` from `slot`, logged. */
  clear(slot: number, fp: number): void {
    this.write(slot, fp, 0);
  }

  private write(slot: number, old: number, value: number): void {
    if (this.logged + 2 > this.log.length) this.grow();
    this.log[this.logged++] = slot;
    this.log[this.logged++] = old;
    this.table.set(slot, value);
  }

  private grow(): void {
    const grown = new Float64Array(this.log.length * 2);
    grown.set(this.log);
    this.log = grown;
  }

  private undoTo(start: number): void {
    const log = this.log;
    for (let at = this.logged - 2; at >= start; at -= 2) this.table.set(log[at]!, log[at + 1]!);
    this.logged = start;
  }
}
