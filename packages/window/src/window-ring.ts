import { InvalidArgumentError } from '@bloomkit/core';
import { periodOf, type WindowState } from './window-codec.js';
import { NAME } from './window-kind.js';

const INV_32 = 1 / 4294967296;

/**
 * The ring of a window filter and the steps every add and lookup take on it: a key's bit in each slice, the search
 * for k slices in a row that hold it, test-and-add, and the ends of generations (by count, or on a time window's
 * clock). The batch paths (window-batches.ts) and the filter's public face (window-bloom-filter.ts) build on it;
 * the design and its guarantees are on `WindowBloomFilter`. Nothing here allocates per key.
 */
export abstract class RingCore {
  /** k: slices each key sets a bit in. */
  readonly hashes: number;
  /** l: slices past the k newest. */
  readonly ageSlices: number;
  /** s: bits per slice. */
  readonly sliceBits: number;
  /** g: keys per generation. */
  readonly generation: number;
  /** The keys the window remembers (per `duration`, for a time window). */
  readonly window: number;
  /** The target rate. */
  readonly fpr: number;
  /** The hash seed. */
  readonly seed: number;
  /** A time window's duration in ms; undefined for a count window. */
  readonly duration: number | undefined;
  /** k + l. */
  protected readonly slices: number;
  /** Milliseconds a generation lasts on the clock alone (0: a count window). */
  protected readonly period: number;
  protected readonly clock: () => number;
  /** s / 2^32: a 32-bit position times this is a bit of the slice. */
  protected readonly scale: number;
  /** The (k + l)·s bits, slice j at bits [j·s, (j + 1)·s). */
  protected bytes: Uint8Array;
  /** The slice of age 0. */
  protected newest: number;
  /** Adds that returned true. */
  protected counted: number;
  /** Per slice: keys of the generation that began at it, and when. */
  protected readonly keys: Float64Array;
  protected readonly starts: Float64Array;
  /** The key at hand: h1..h4. */
  protected readonly hash: Int32Array = new Int32Array(4);
  /** The time of the last clock reading, at or after the newest generation's start (0 for a count window). */
  protected lastNow = 0;
  /** The clock is being read: a clock that calls back into this filter is refused instead of recursing. */
  protected reading = false;

  protected constructor(state: WindowState, seed: number, bytes: Uint8Array, clock: () => number) {
    this.hashes = state.hashes;
    this.ageSlices = state.ageSlices;
    this.sliceBits = state.sliceBits;
    this.generation = state.generation;
    this.window = state.window;
    this.fpr = state.fpr;
    this.seed = seed;
    this.duration = state.duration > 0 ? state.duration : undefined;
    this.slices = state.hashes + state.ageSlices;
    this.period = periodOf(state.duration, state.ageSlices);
    this.clock = clock;
    this.scale = state.sliceBits * INV_32;
    this.bytes = bytes;
    this.newest = state.newest;
    this.counted = state.count;
    this.keys = state.keys;
    this.starts = state.starts;
  }

  /** The slice at age `i` (0 the newest). */
  protected physical(i: number): number {
    const j = this.newest + i;
    return j >= this.slices ? j - this.slices : j;
  }

  /**
   * The key's bit in slice `j`: position j of FORMAT.md §5's cubic, reduced to the slice (Horner's rule: the ring
   * reads one slice at a time, in no fixed order). The one copy of the window's slot formula in TypeScript.
   */
  protected bitOf(j: number): number {
    const h = this.hash;
    const p = (h[0]! + Math.imul(j, (h[1]! + Math.imul(j, (h[2]! + Math.imul(j, h[3]!)) | 0)) | 0)) >>> 0;
    return j * this.sliceBits + Math.floor(p * this.scale);
  }

  /**
   * Some k consecutive slices hold the hashed key's bits: every such run holds one of the ages k − 1, 2k − 1, …,
   * so those are read first, then their neighbours while the run lasts. The bits of ages below `known` are taken
   * from `before` (bit a for age a) instead of being read: `add` has just read the k newest.
   */
  protected find(before: number, known: number): boolean {
    const k = this.hashes;
    const slices = this.slices;
    for (let anchor = k - 1; anchor < slices; anchor += k) {
      if (this.bitAt(anchor, before, known) === 0) continue;
      let run = 1;
      for (let age = anchor - 1; age > anchor - k && this.bitAt(age, before, known) !== 0; age--) run++;
      for (let age = anchor + 1; run < k && age < slices && this.bitAt(age, before, known) !== 0; age++)
        run++;
      if (run >= k) return true;
    }
    return false;
  }

  /** The hashed key's bit in the slice of age `age`: 1 or 0 (from `before` below `known`). */
  protected bitAt(age: number, before: number, known: number): number {
    if (age < known) return (before >>> age) & 1;
    const bit = this.bitOf(this.physical(age));
    return (this.bytes[bit >>> 3]! >>> (bit & 7)) & 1;
  }

  /** Test-and-add of the hashed key at the clock's time now: {@link addTicked} after a tick. */
  protected addHashed(): boolean {
    this.tick();
    return this.addTicked();
  }

  /**
   * Test-and-add of the hashed key, the ring already ticked: sets its bits in the k newest slices, noting which
   * were set before, then looks for a run of k with those ages known. A generation that fills ends.
   */
  protected addTicked(): boolean {
    const k = this.hashes;
    let before = 0;
    for (let age = 0; age < k; age++) {
      const bit = this.bitOf(this.physical(age));
      const at = bit >>> 3;
      const mask = 1 << (bit & 7);
      const byte = this.bytes[at]!;
      // Branch-free, so the k loads overlap: the bit's old value into `before`, the byte always written back.
      before |= ((byte >>> (bit & 7)) & 1) << age;
      this.bytes[at] = byte | mask;
    }
    const all = k === 32 ? -1 : (1 << k) - 1;
    if (before === all) return false;
    const present = this.find(before, k);
    if (this.fullWith(++this.keys[this.newest]!)) this.shift(this.lastNow);
    if (present) return false;
    if (this.counted < Number.MAX_SAFE_INTEGER) this.counted++;
    return true;
  }

  /**
   * A time window: reads the clock and ends every generation whose time is up (docs/FORMAT.md §3.6). A reading
   * behind the newest generation's start counts as that start, so a clock that steps back ends nothing and a
   * generation never takes more than g keys; one ending by time ends at {@link generationEnd} and the next begins
   * then; after k + l endings (every slice cleared) the rest of the idle time passes at once and the newest
   * generation begins at the reading, so a reading years ahead costs k + l endings, no more, and reading again at
   * the same time changes nothing.
   */
  protected tick(): void {
    if (this.period === 0) return;
    const now = this.readClock();
    this.lastNow = now;
    for (let shifted = 0; ; shifted++) {
      const held = this.keys[this.newest]!;
      const end = this.generationEnd(held);
      // An empty generation that began at this very reading never ends at it, even when a period is below the
      // reading's precision (start + period rounds to start): so a second reading at the same time ends nothing.
      if (now < end || (held === 0 && this.starts[this.newest] === now)) return;
      if (shifted === this.slices) {
        this.starts[this.newest] = now;
        return;
      }
      this.shift(end);
    }
  }

  /** The clock's reading (checked by `checkClock`), no earlier than the newest generation's start. */
  protected readClock(): number {
    if (this.reading) {
      throw new InvalidArgumentError(
        `${NAME}: the clock called back into this filter; a clock must only read the time`,
      );
    }
    this.reading = true;
    let now: number;
    try {
      now = this.clock();
    } finally {
      this.reading = false;
    }
    const start = this.starts[this.newest]!;
    return now < start ? start : now;
  }

  /** Ends the current generation: the oldest slice is cleared and becomes the newest, begun at `start`. */
  protected shift(start: number): void {
    this.newest = this.newest === 0 ? this.slices - 1 : this.newest - 1;
    const bytesPerSlice = this.sliceBits / 8;
    this.bytes.fill(0, this.newest * bytesPerSlice, (this.newest + 1) * bytesPerSlice);
    this.keys[this.newest] = 0;
    this.starts[this.newest] = this.period > 0 ? start : 0;
  }

  /**
   * Counted keys the current generation takes before it is full, at the last clock reading: the least r ≥ 1 for
   * which {@link fullWith} holds once r more keys are counted; at most g less the keys held, since a generation of
   * g keys is always full.
   */
  protected room(): number {
    const held = this.keys[this.newest]!;
    const most = Math.max(1, this.generation - held);
    if (this.period === 0) return most;
    // The estimate from the end's formula, then moved to the least r that passes the very test fullWith makes in
    // floating point (the two can differ in the last bit).
    const elapsed = (this.lastNow - this.starts[this.newest]!) / this.period;
    let r = Math.min(most, Math.max(1, Math.ceil((1 - elapsed) * this.generation) - held));
    while (r > 1 && this.fullWith(held + r - 1)) r--;
    while (r < most && !this.fullWith(held + r)) r++;
    return r;
  }

  /**
   * The current generation, holding `held` keys, has ended: held reached g, or for a time window the last clock
   * reading reached its end ({@link generationEnd}).
   */
  protected fullWith(held: number): boolean {
    if (held >= this.generation) return true;
    return this.period > 0 && this.lastNow >= this.generationEnd(held);
  }

  /**
   * When the newest generation, holding `held` keys, ends on the clock: start + period·(1 − held/g), each operation
   * in binary64 in this order (docs/FORMAT.md §3.6): a generation lasts a period, less a share for each key it took.
   */
  protected generationEnd(held: number): number {
    return this.starts[this.newest]! + this.period * (1 - held / this.generation);
  }

  /** Copies h1..h4 from `hash[at .. at + 3]` into `this.hash` (four words: no view, no allocation). */
  protected takeHash(hash: Int32Array, at: number): void {
    const own = this.hash;
    own[0] = hash[at]!;
    own[1] = hash[at + 1]!;
    own[2] = hash[at + 2]!;
    own[3] = hash[at + 3]!;
  }

  protected state(): WindowState {
    return {
      hashes: this.hashes,
      ageSlices: this.ageSlices,
      sliceBits: this.sliceBits,
      generation: this.generation,
      window: this.window,
      fpr: this.fpr,
      duration: this.duration ?? 0,
      newest: this.newest,
      count: this.counted,
      keys: this.keys.slice(),
      starts: this.starts.slice(),
    };
  }
}
