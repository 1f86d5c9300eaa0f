import {
  type BloomFilter,
  type ByteSource,
  type DeserializeOptions,
  type FilterJson,
  FORMAT_VERSION,
  FormatError,
  HEADER_BYTES,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
  type KindRecord,
  partitionedLayout,
  type SeedOption,
} from '@bloomkit/core';
import {
  checkAllocation,
  decodeChain,
  encodeNestedParts,
  fromFilterJson,
  joinParts,
  newKernelBytes,
  readDeserializeOptions,
  readOptions,
  resolveSeed,
  toFilterJson,
  type WindowKernel,
  windowKernel,
} from '@bloomkit/core/internal';
import {
  BitArray,
  batchHashes,
  checkClock,
  checkHashBatch,
  crc32c,
  hashBatch,
  hashInto,
  keyList,
} from '@bloomkit/core/kit';
import {
  MAX_DURATION_MS,
  paramsBytes,
  periodOf,
  readWindowParams,
  type WindowState,
  writeWindowParams,
} from './window-codec.js';
import { chooseWindowShape, runRate, type WindowShape } from './window-sizing.js';

/** hasMany's answers, a batch at a time (grown once if a batch holds more keys). */
let probeAnswers = new Uint8Array(4096);

/** Kind 7 of docs/FORMAT.md: an age-partitioned ring of slices that forgets old keys. */
export const windowKind: KindRecord = {
  id: 7,
  name: 'window',
  className: 'WindowBloomFilter',
  params: 'ring',
  // Slice j's bit is position j of the partitioned layout with k + l positions of range s (FORMAT.md §5).
  layout: partitionedLayout,
  counterWidths: [0],
};
const NAME = windowKind.className;
const INV_32 = 1 / 4294967296;

/**
 * Keys a batch adds per clock reading of a time window: one kernel call, ~0.16 ms at 10^6 keys (6.5 M keys/s),
 * shorter than the millisecond a `Date.now` reading stands for. So a batch's keys are added at the time their run
 * began, at most that long before they are: a generation may end that much later than key by key, never holding
 * more than g keys.
 */
const KEYS_PER_READING = 1024;

/** Options of {@link WindowBloomFilter.create}. */
export interface WindowOptions extends SeedOption {
  /**
   * A time window, in milliseconds (an integer in [1, 2^40], about 34.8 years): every key added within the last `duration` is
   * present while at most `window` keys arrive per `duration`. More keys shorten the memory (see
   * {@link WindowBloomFilter.shortened}); the rate stays. Keys are forgotten at most 2·duration after they were
   * added. Without it, the window counts keys.
   */
  readonly duration?: number | undefined;
  /**
   * The time in milliseconds since the epoch, for a time window; default `Date.now`. A reading is input, not
   * truth: one behind the newest generation's start counts as that start, one far ahead ends at most k + l
   * generations, and one that is not in [0, 2^47] (NaN, negative, past the year 6429) is refused with an
   * InvalidArgumentError, changing nothing. It must only read the time: one that calls back into this filter is
   * refused the same way. Tests inject their own.
   */
  readonly clock?: (() => number) | undefined;
}

/** Options of {@link WindowBloomFilter.deserialize}. */
export interface WindowReadOptions extends DeserializeOptions, Pick<SeedOption, 'maxBytes'> {
  /** The clock of a time window (default `Date.now`). */
  readonly clock?: (() => number) | undefined;
}

/**
 * A window's ring as a store outside this class keeps it (`@bloomkit/redis`): the state of its generations and its
 * slices' bytes (docs/FORMAT.md §3.6).
 */
export interface WindowRing {
  /** The slice of age 0. */
  readonly newest: number;
  /** Per slice j: keys of the generation that began at it, and when (ms; 0 in a count window). */
  readonly keys: readonly number[];
  /** Per slice j: when the generation that began at it began (ms; 0 in a count window). */
  readonly starts: readonly number[];
  /** Adds that returned true. */
  readonly count: number;
  /** The (k + l)·s bits, slice j at bits [j·s, (j + 1)·s). */
  readonly bytes: Uint8Array;
}

/** How far back a key can still be found: past both, it is present at most at the target rate. */
export interface WindowHorizon {
  /** (k + l)·g: a key followed by this many adds has had every one of its slices cleared. */
  readonly keys: number;
  /** A time window: (k + l)·period ms, the same on the clock alone. Undefined for a count window. */
  readonly ms: number | undefined;
}

/** What the window remembers now. */
export interface WindowReach {
  /** Keys added since `since` (the newest generations still whole): every one of them is present. */
  readonly keys: number;
  /**
   * A time window: every key added at a time later than this (ms) is present. A key added at exactly this time may
   * belong to the generation before (one that filled and ended in that millisecond). Undefined for a count window.
   */
  readonly since: number | undefined;
}

/**
 * A sliding-window Bloom filter: it remembers the most recent keys and forgets old ones, on a stream of any
 * length, at a false-positive rate that never rises above its target. The Age-Partitioned Bloom Filter of
 * Shtul, Baquero and Almeida (arXiv 2001.03147, 2020): k + l slices in a ring; a key sets one bit in each of the
 * k newest; a key is present when k consecutive slices hold its bits; after every generation (g keys, or for a
 * time window also a share of the duration) the oldest slice is cleared and becomes the newest. Sizing and rate:
 * window-sizing.ts.
 *
 * Guarantees: a count window holds every one of the last `window` keys (at least l·g ≥ window: those of the l
 * generations before the current one, and the current one's); a key is forgotten once (l + 1)·g keys came
 * after it. A time window holds every key of the last `duration` while at most `window` keys arrive per
 * `duration`. A key never added, or forgotten, is present at most at the target rate.
 *
 * Cost: `add` sets k bits and first asks `has`; `has` reads a bit in one slice out of every k (k − 1, 2k − 1,
 * …), and around those that are set, until it finds k set in a row: about (k + l)/k + 2 bit reads for an absent
 * key. Nothing is allocated per key. Batches (`addAll`, `hasMany`, `addHashes`, `hasHashes`) of a ring from
 * 256 KiB of bits run the same steps in WebAssembly (core's wasm/window.wat), with the same answers (10^6 URL keys in
 * batches of 4,096: `addAll` 6.46 M keys/s against 5.34 on the JavaScript loops). A batch reads a time window's
 * clock once per 1,024 keys, `add` once per key.
 */
export class WindowBloomFilter implements BloomFilter {
  /** The window kind's format record (kind id 7). */
  static readonly kind: KindRecord = windowKind;

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
  readonly seed: number;
  /** A time window's duration in ms; undefined for a count window. */
  readonly duration: number | undefined;
  private readonly slices: number;
  /** Milliseconds a generation lasts on the clock alone (0: a count window). */
  private readonly period: number;
  private readonly clock: () => number;
  private readonly scale: number;
  private bytes: Uint8Array;
  private newest: number;
  private counted: number;
  /** Per slice: keys of the generation that began at it, and when. */
  private readonly keys: Float64Array;
  private readonly starts: Float64Array;
  private readonly hash = new Int32Array(4);
  /** A time window's copy of the batch being added (see {@link keptHashes}); grown once to the batch size. */
  private batchCopy = new Int32Array(0);
  /**
   * The batch kernel (core's wasm/window.wat) over the ring's bits, when they live in a WebAssembly memory of their
   * own (from 256 KiB of bits, as `create`, a copying `deserialize` and `clone` allocate them): made on the first
   * batch; null when there is none.
   */
  private kernel: WindowKernel | null | undefined;
  /** The file this filter works on in place (read with `copy: false`), else undefined. */
  private readonly file: Uint8Array | undefined;

  private constructor(
    state: WindowState,
    seed: number,
    bytes: Uint8Array,
    clock: () => number,
    file: Uint8Array | undefined,
  ) {
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
    this.file = file;
  }

  /**
   * A filter that remembers at least the last `window` keys (an integer ≥ 1) and answers any other key with a
   * false-positive rate of at most `fpr`, in (0, 1), however long the stream. With `duration`, a time window.
   */
  static create(window: number, fpr: number, options?: WindowOptions): WindowBloomFilter {
    const where = `${NAME}.create`;
    const o = readOptions(where, options);
    const duration = o.duration;
    if (
      duration !== undefined &&
      (typeof duration !== 'number' ||
        !Number.isSafeInteger(duration) ||
        duration < 1 ||
        duration > MAX_DURATION_MS)
    ) {
      throw new InvalidArgumentError(
        `${where}: duration must be an integer number of milliseconds in [1, 2^40], got ${String(duration)}`,
      );
    }
    const clock = checkClock(where, o.clock);
    const shape = chooseWindowShape(where, window, fpr, duration !== undefined);
    const seed = resolveSeed(where, o.seed);
    const slices = shape.hashes + shape.ageSlices;
    const byteLength = (shape.sliceBits * slices) / 8;
    checkAllocation(where, byteLength, o.maxBytes);
    const now = duration === undefined ? 0 : clock();
    return new WindowBloomFilter(
      freshState(shape, window, fpr, duration ?? 0, now),
      seed,
      newKernelBytes(byteLength),
      clock,
      undefined,
    );
  }

  /** Reads a filter written by {@link serialize}; `copy: false` works on the bytes in place (see `syncBytes`). */
  static deserialize(bytes: ByteSource, options?: WindowReadOptions): WindowBloomFilter {
    const where = `${NAME}.deserialize`;
    const read = readDeserializeOptions(where, options);
    const clock = checkClock(where, options?.clock);
    const envelope = decodeChain(windowKind, bytes, { verifyChecksum: read.verifyChecksum, where });
    const state = readWindowParams(envelope.params, envelope.payloadLength, where);
    checkAllocation(where, read.copy ? envelope.payloadLength : 0, options?.maxBytes);
    const inPlace =
      !read.copy && bytes instanceof Uint8Array && envelope.payload.length === 1 ? bytes : undefined;
    let bits: Uint8Array;
    if (inPlace !== undefined) bits = envelope.payload[0]!;
    else bits = newKernelBytes(envelope.payloadLength, envelope.payload);
    return new WindowBloomFilter(state, envelope.seed, bits, clock, inPlace);
  }

  /**
   * A filter over a ring kept elsewhere (`@bloomkit/redis` exporting a window): the shape is what `create` gives
   * for `window`, `fpr` and `duration`; the ring is checked as `deserialize` checks a file (FormatError). The
   * bytes are copied.
   */
  static fromRing(
    sizing: {
      readonly window: number;
      readonly fpr: number;
      readonly seed: number;
      readonly duration?: number | undefined;
    },
    ring: WindowRing,
    options?: { readonly clock?: (() => number) | undefined },
  ): WindowBloomFilter {
    const where = `${NAME}.fromRing`;
    const duration = sizing.duration ?? 0;
    const shape = chooseWindowShape(where, sizing.window, sizing.fpr, duration > 0);
    const slices = shape.hashes + shape.ageSlices;
    if (ring.keys.length !== slices || ring.starts.length !== slices) {
      throw new FormatError(
        `${where}: a ring of ${slices} slices has ${slices} generations, got ${ring.keys.length}`,
      );
    }
    for (const [what, value] of [
      ['newest', ring.newest],
      ['count', ring.count],
      ...ring.keys.map((held, j) => [`keys of generation ${j}`, held] as const),
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new FormatError(`${where}: ${what} must be a non-negative integer, got ${String(value)}`);
      }
    }
    const params = new Uint8Array(paramsBytes(slices));
    writeWindowParams(
      {
        ...shape,
        window: sizing.window,
        fpr: sizing.fpr,
        duration,
        newest: ring.newest,
        count: ring.count,
        keys: Float64Array.from(ring.keys),
        starts: Float64Array.from(ring.starts),
      },
      params,
    );
    const parts = encodeNestedParts(windowKind, sizing.seed, params, [ring.bytes]);
    return WindowBloomFilter.deserialize(parts, {
      clock: options?.clock ?? Date.now,
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
  }

  /**
   * The shape `create(window, fpr, { duration })` chooses, without allocating it, and the ms a generation lasts on
   * the clock alone (0 for a count window).
   */
  static shapeOf(
    window: number,
    fpr: number,
    options?: { readonly duration?: number | undefined },
  ): WindowShape & { readonly period: number } {
    const duration = options?.duration;
    const shape = chooseWindowShape(`${NAME}.shapeOf`, window, fpr, duration !== undefined);
    return { ...shape, period: periodOf(duration ?? 0, shape.ageSlices) };
  }

  /** The ring's state and a view of its bytes, for a store that keeps it elsewhere (see {@link fromRing}). */
  ring(): WindowRing {
    return {
      newest: this.newest,
      keys: Array.from(this.keys),
      starts: Array.from(this.starts),
      count: this.counted,
      bytes: this.bytes,
    };
  }

  /** Reads the JSON form written by `toJSON()` (the object or its JSON text); FormatError for anything else. */
  static fromJSON(json: unknown, options?: WindowReadOptions): WindowBloomFilter {
    return WindowBloomFilter.deserialize(fromFilterJson(`${NAME}.fromJSON`, json, windowKind.name), options);
  }

  /** m: bits in all slices. */
  get bits(): number {
    return this.sliceBits * this.slices;
  }

  /** The window, as `create` took it (the interface's capacity). */
  get capacity(): number {
    return this.window;
  }

  /** Adds that returned true: keys that were not in the window when added. */
  get count(): number {
    return this.counted;
  }

  /**
   * When keys are forgotten. A key is always present for l generations after its own (the window); after l + 1
   * its oldest slice is cleared and it needs the bit of a neighbouring slice by chance, so it is found about half
   * as often each generation after; after k + l its every slice is cleared. A count window forgets a key once
   * (k + l)·g adds came after it, a time window also once (k + l) periods passed.
   */
  get horizon(): WindowHorizon {
    return {
      keys: this.slices * this.generation,
      ms: this.period > 0 ? this.slices * this.period : undefined,
    };
  }

  /**
   * What the window holds now: every key added since its oldest whole generation began. A count window always
   * reaches back at least `window` keys once that many have come.
   */
  reach(): WindowReach {
    this.tick();
    let keys = 0;
    for (let i = 0; i <= this.ageSlices; i++) keys += this.keys[this.physical(i)]!;
    return {
      keys,
      since: this.period > 0 ? this.starts[this.physical(this.ageSlices)] : undefined,
    };
  }

  /**
   * A time window whose memory is shorter than its duration now: more than `window` keys came within a
   * duration, so generations ended early (the rate was kept). Always false for a count window.
   */
  get shortened(): boolean {
    if (this.period === 0) return false;
    const since = this.reach().since!;
    return this.lastNow - since < this.duration!;
  }

  /** Adds `key`; true when it was not in the window (so a stream's first sighting in the window is true). */
  add(key: Key): boolean {
    hashInto(key, this.seed, this.hash, `${NAME}.add`);
    return this.addHashed();
  }

  /** True when `key` may have been added within the window; false when it certainly was not. */
  has(key: Key): boolean {
    hashInto(key, this.seed, this.hash, `${NAME}.has`);
    this.tick();
    return this.find(0, 0);
  }

  /** `add` for a key already hashed: `hash[0..3]` hold h1..h4 with this filter's seed (`hashInto`). */
  addHash(hash: Int32Array): boolean {
    this.takeHash(hash, 0);
    return this.addHashed();
  }

  /** `has` for a key already hashed with this filter's seed. */
  hasHash(hash: Int32Array): boolean {
    this.takeHash(hash, 0);
    this.tick();
    return this.find(0, 0);
  }

  /**
   * Adds every key in order; returns how many were new to the window. Keys are checked first (arrays), then
   * hashed a batch at a time (`hashBatch`: in WebAssembly where it loads). A time window reads its clock once per
   * 1,024 keys: each run of them is added at the time it began.
   */
  addAll(keys: Iterable<Key>): number {
    const list = keyList(`${NAME}.addAll`, keys);
    let added = 0;
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, `${NAME}.addAll`);
      added += this.addBatch(this.period > 0 ? this.keptHashes(count) : batchHashes(), count, undefined);
      start += count;
    }
    return added;
  }

  /**
   * The batch just hashed, copied into this filter's own buffer: a time window reads its clock between the batch's
   * runs, and a clock that hashes keys of its own (another filter's `hasMany`) would overwrite the shared buffer.
   */
  private keptHashes(count: number): Int32Array {
    if (this.batchCopy.length < count * 4) this.batchCopy = new Int32Array(count * 4);
    this.batchCopy.set(batchHashes().subarray(0, count * 4));
    return this.batchCopy;
  }

  /** `has` for each key, hashed a batch at a time. */
  hasMany(keys: readonly Key[]): boolean[] {
    const list = keyList(`${NAME}.hasMany`, keys);
    const out = new Array<boolean>(list.length);
    this.tick();
    for (let start = 0; start < list.length; ) {
      const count = hashBatch(list, start, this.seed, `${NAME}.hasMany`);
      if (probeAnswers.length < count) probeAnswers = new Uint8Array(count);
      this.findBatch(batchHashes(), count, probeAnswers);
      for (let j = 0; j < count; j++) out[start + j] = probeAnswers[j] === 1;
      start += count;
    }
    return out;
  }

  /**
   * `addHash` for a batch of keys already hashed: key j's h1..h4 at `hashes[4j .. 4j + 3]` for j < `count` (as
   * `hashBatch` and `hashLineBatch` in `@bloomkit/core/internal` write them), added in order (a time window's at
   * one clock reading per 1,024 keys, as `addAll`). `answers[j]`, when given, is set to 1 when key j was new and 0
   * otherwise. Returns how many were new. Arguments are checked first.
   */
  addHashes(hashes: Int32Array, count: number, answers?: Uint8Array): number {
    checkHashBatch(`${NAME}.addHashes`, hashes, count, answers, false);
    return this.addBatch(hashes, count, answers);
  }

  /**
   * Adds `count` hashed keys in order; answers as {@link addHashes}. The keys go {@link KEYS_PER_READING} at a
   * time: a time window reads its clock once for each such run (a count window never does), and every key of the
   * run is added at that time, on the kernel or on the JavaScript loops alike.
   */
  private addBatch(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    const kernel = this.batchKernel();
    let added = 0;
    for (let done = 0; done < count; done += KEYS_PER_READING) {
      const n = Math.min(KEYS_PER_READING, count - done);
      this.tick();
      added +=
        kernel !== null
          ? this.kernelAdd(kernel, hashes, done, n, answers)
          : this.scriptAdd(hashes, done, n, answers);
    }
    return added;
  }

  /** Adds keys [done, done + n) of a batch (the ring ticked) on the JavaScript loops; answers as {@link addHashes}. */
  private scriptAdd(hashes: Int32Array, done: number, n: number, answers: Uint8Array | undefined): number {
    let added = 0;
    for (let j = done; j < done + n; j++) {
      this.takeHash(hashes, j * 4);
      const fresh = this.addTicked();
      if (fresh) added++;
      if (answers !== undefined) answers[j] = fresh ? 1 : 0;
    }
    return added;
  }

  /**
   * {@link scriptAdd} on the kernel: a call takes keys until the generation is full ({@link room} counted keys),
   * then the ring shifts here, as `addTicked` shifts it after the key that fills it.
   */
  private kernelAdd(
    kernel: WindowKernel,
    hashes: Int32Array,
    from: number,
    count: number,
    answers: Uint8Array | undefined,
  ): number {
    let added = 0;
    const end = from + count;
    for (let done = from; done < end; ) {
      const n = Math.min(kernel.keysPerCall, end - done);
      kernel.hashes.set(hashes.subarray(done * 4, (done + n) * 4));
      const took = kernel.mark(
        n,
        this.scale,
        this.sliceBits,
        this.slices,
        this.hashes,
        this.newest,
        this.room(),
      );
      const said = kernel.answers;
      let counted = 0;
      for (let j = 0; j < took; j++) {
        const answer = said[j]!;
        if (answer !== 0) counted++;
        if (answer === 1) added++;
        if (answers !== undefined) answers[done + j] = answer === 1 ? 1 : 0;
      }
      this.keys[this.newest] = this.keys[this.newest]! + counted;
      if (this.fullWith(this.keys[this.newest]!)) this.shift(this.lastNow);
      done += took;
    }
    this.counted = Math.min(Number.MAX_SAFE_INTEGER, this.counted + added);
    return added;
  }

  /**
   * Counted keys the current generation takes before it is full, at the last clock reading: the least r ≥ 1 for
   * which {@link fullWith} holds once r more keys are counted; at most g less the keys held, since a generation of
   * g keys is always full.
   */
  private room(): number {
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
  private fullWith(held: number): boolean {
    if (held >= this.generation) return true;
    return this.period > 0 && this.lastNow >= this.generationEnd(held);
  }

  /**
   * When the newest generation, holding `held` keys, ends on the clock: start + period·(1 − held/g), each operation
   * in binary64 in this order (docs/FORMAT.md §3.6): a generation lasts a period, less a share for each key it took.
   */
  private generationEnd(held: number): number {
    return this.starts[this.newest]! + this.period * (1 - held / this.generation);
  }

  /**
   * The batch kernel when this filter's bits live in a kernel memory (made on first use); else null: a ring below
   * 256 KiB, one read in place (its bits are the file's), or where WebAssembly is missing.
   */
  private batchKernel(): WindowKernel | null {
    if (this.kernel === undefined) this.kernel = windowKernel(this.bytes) ?? null;
    return this.kernel;
  }

  /** `hasHash` for a batch of keys already hashed (see {@link addHashes}): `answers[j]` is 1 when key j may be in. */
  hasHashes(hashes: Int32Array, count: number, answers: Uint8Array): void {
    checkHashBatch(`${NAME}.hasHashes`, hashes, count, answers, true);
    this.tick();
    this.findBatch(hashes, count, answers);
  }

  /**
   * Looks up `count` hashed keys (the ring already ticked), on the kernel where there is one: answers[j] = 1 when
   * key j may be in, else 0.
   */
  private findBatch(hashes: Int32Array, count: number, answers: Uint8Array): void {
    const kernel = this.batchKernel();
    if (kernel !== null) {
      for (let done = 0; done < count; done += kernel.keysPerCall) {
        const n = Math.min(kernel.keysPerCall, count - done);
        kernel.hashes.set(hashes.subarray(done * 4, (done + n) * 4));
        kernel.probe(n, this.scale, this.sliceBits, this.slices, this.hashes, this.newest);
        answers.set(kernel.answers.subarray(0, n), done);
      }
      return;
    }
    for (let j = 0; j < count; j++) {
      this.takeHash(hashes, j * 4);
      answers[j] = this.find(0, 0) ? 1 : 0;
    }
  }

  /** Copies h1..h4 from `hash[at .. at + 3]` into `this.hash` (four words: no view, no allocation). */
  private takeHash(hash: Int32Array, at: number): void {
    const own = this.hash;
    own[0] = hash[at]!;
    own[1] = hash[at + 1]!;
    own[2] = hash[at + 2]!;
    own[3] = hash[at + 3]!;
  }

  /** Set bits over all bits. */
  fillRatio(): number {
    return setBits(this.bytes) / this.bits;
  }

  /** The keys the window holds now (exact: the count of {@link reach}). */
  estimatedCount(): number {
    return this.reach().keys;
  }

  /** The rate now: the run-of-k probability over the slices' measured fills, newest to oldest. */
  expectedFpr(): number {
    this.tick();
    const fills: number[] = [];
    const bytesPerSlice = this.sliceBits / 8;
    for (let i = 0; i < this.slices; i++) {
      const from = this.physical(i) * bytesPerSlice;
      fills.push(setBits(this.bytes.subarray(from, from + bytesPerSlice)) / this.sliceBits);
    }
    return runRate(fills, this.hashes);
  }

  /**
   * A filter holding both windows' keys, generation by generation (same shape, seed and kind of window; count
   * windows only: two clocks' generations do not line up). IncompatibleFiltersError when a generation would hold
   * more than g keys, which would break the rate.
   */
  union(other: this): this {
    this.checkCompatible(other, 'union');
    if (this.period > 0) {
      throw new IncompatibleFiltersError(
        `${NAME}.union: time windows cannot be joined (their generations follow different clocks)`,
      );
    }
    const out = this.clone();
    const bytesPerSlice = this.sliceBits / 8;
    for (let i = 0; i < this.slices; i++) {
      const held = this.keys[this.physical(i)]! + other.keys[other.physical(i)]!;
      if (held > this.generation) {
        throw new IncompatibleFiltersError(
          `${NAME}.union: generation ${i} would hold ${held} keys, more than g = ${this.generation}; the union would break the rate`,
        );
      }
    }
    for (let i = 0; i < this.slices; i++) {
      const to = out.physical(i) * bytesPerSlice;
      const from = other.physical(i) * bytesPerSlice;
      for (let b = 0; b < bytesPerSlice; b++) out.bytes[to + b] = out.bytes[to + b]! | other.bytes[from + b]!;
      out.keys[out.physical(i)] = this.keys[this.physical(i)]! + other.keys[other.physical(i)]!;
    }
    out.counted = Math.min(Number.MAX_SAFE_INTEGER, this.counted + other.counted);
    // A newest generation the two filled between them ends, as the add that filled it would have ended it.
    if (out.keys[out.newest]! >= out.generation) out.shift(0);
    return out;
  }

  /**
   * Not defined for windows: a key present in both may sit at different ages in each, and the slices' AND would
   * lose it. Throws IncompatibleFiltersError.
   */
  intersect(_other: this): this {
    throw new IncompatibleFiltersError(
      `${NAME}.intersect: window filters have no sound intersection (a key present in both may be at different ages in each)`,
    );
  }

  clone(): this {
    const bytes = newKernelBytes(this.bytes.length, this.bytes);
    return new WindowBloomFilter(this.state(), this.seed, bytes, this.clock, undefined) as this;
  }

  /** Forgets every key (a time window's generation starts now). */
  clear(): void {
    // Read first: a clock that refuses leaves the filter as it was.
    const now = this.period > 0 ? this.readClock() : 0;
    this.bytes.fill(0);
    this.keys.fill(0);
    this.starts.fill(0);
    this.counted = 0;
    this.newest = 0;
    if (this.period > 0) {
      // As `create` leaves it: the older (empty) generations began a period apart before now.
      for (let i = 0; i < this.slices; i++) this.starts[i] = now - i * this.period;
    }
  }

  /** Same shape, seed, state and bits. */
  equals(other: this): boolean {
    if (!(other instanceof WindowBloomFilter)) return false;
    const a = this.serializeParts();
    const b = other.serializeParts();
    const x = joinParts(windowKind, a);
    const y = joinParts(windowKind, b);
    return x.length === y.length && x.every((byte, i) => byte === y[i]);
  }

  serialize(): Uint8Array {
    return joinParts(windowKind, this.serializeParts());
  }

  serializeParts(): Uint8Array[] {
    const params = new Uint8Array(paramsBytes(this.slices));
    writeWindowParams(this.state(), params);
    return encodeNestedParts(windowKind, this.seed, params, [this.bytes]);
  }

  toJSON(): FilterJson {
    return toFilterJson(`${NAME}.toJSON`, windowKind.name, FORMAT_VERSION, this.serialize());
  }

  /**
   * For a filter read with `copy: false`: writes its generations and count into the params and the checksum, so
   * the bytes it was read from are a valid file again, and returns them. InvalidArgumentError for a filter that
   * does not work in place.
   */
  syncBytes(): Uint8Array {
    const file = this.file;
    if (file === undefined) {
      throw new InvalidArgumentError(
        `${NAME}.syncBytes: this filter does not work in place (it was not read with copy: false from one array); use serialize()`,
      );
    }
    writeWindowParams(this.state(), file.subarray(HEADER_BYTES, HEADER_BYTES + paramsBytes(this.slices)));
    const end = file.length - 4;
    new DataView(file.buffer, file.byteOffset + end, 4).setUint32(0, crc32c(file.subarray(0, end)), true);
    return file;
  }

  /** The slice at age `i` (0 the newest). */
  private physical(i: number): number {
    const j = this.newest + i;
    return j >= this.slices ? j - this.slices : j;
  }

  /** The key's bit in slice `j`: position j of FORMAT.md §5's cubic, reduced to the slice. */
  private bitOf(j: number): number {
    const h = this.hash;
    const p = (h[0]! + Math.imul(j, (h[1]! + Math.imul(j, (h[2]! + Math.imul(j, h[3]!)) | 0)) | 0)) >>> 0;
    return j * this.sliceBits + Math.floor(p * this.scale);
  }

  /**
   * Some k consecutive slices hold the hashed key's bits: every such run holds one of the ages k − 1, 2k − 1, …,
   * so those are read first, then their neighbours while the run lasts. The bits of ages below `known` are taken
   * from `before` (bit a for age a) instead of being read: `add` has just read the k newest.
   */
  private find(before: number, known: number): boolean {
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
  private bitAt(age: number, before: number, known: number): number {
    if (age < known) return (before >>> age) & 1;
    let j = this.newest + age;
    if (j >= this.slices) j -= this.slices;
    const h = this.hash;
    const p = (h[0]! + Math.imul(j, (h[1]! + Math.imul(j, (h[2]! + Math.imul(j, h[3]!)) | 0)) | 0)) >>> 0;
    const bit = j * this.sliceBits + Math.floor(p * this.scale);
    return (this.bytes[bit >>> 3]! >>> (bit & 7)) & 1;
  }

  /** Test-and-add of the hashed key at the clock's time now: {@link addTicked} after a tick. */
  private addHashed(): boolean {
    this.tick();
    return this.addTicked();
  }

  /**
   * Test-and-add of the hashed key, the ring already ticked: sets its bits in the k newest slices, noting which
   * were set before, then looks for a run of k with those ages known. A generation that fills ends.
   */
  private addTicked(): boolean {
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

  /** The time of the last clock reading, at or after the newest generation's start (0 for a count window). */
  private lastNow = 0;
  /** The clock is being read: a clock that calls back into this filter is refused instead of recursing. */
  private reading = false;

  /**
   * A time window: reads the clock and ends every generation whose time is up (docs/FORMAT.md §3.6). A reading
   * behind the newest generation's start counts as that start, so a clock that steps back ends nothing and a
   * generation never takes more than g keys; one ending by time ends at {@link generationEnd} and the next begins
   * then; after k + l endings (every slice cleared) the rest of the idle time passes in whole periods, so a reading
   * years ahead costs k + l endings, no more.
   */
  private tick(): void {
    if (this.period === 0) return;
    const now = this.readClock();
    this.lastNow = now;
    for (let shifted = 0; ; shifted++) {
      const end = this.generationEnd(this.keys[this.newest]!);
      if (now < end) return;
      if (shifted === this.slices) {
        this.starts[this.newest] = end + this.period * Math.floor((now - end) / this.period);
        return;
      }
      this.shift(end);
    }
  }

  /** The clock's reading (checked by `checkClock`), no earlier than the newest generation's start. */
  private readClock(): number {
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
  private shift(start: number): void {
    this.newest = this.newest === 0 ? this.slices - 1 : this.newest - 1;
    const bytesPerSlice = this.sliceBits / 8;
    this.bytes.fill(0, this.newest * bytesPerSlice, (this.newest + 1) * bytesPerSlice);
    this.keys[this.newest] = 0;
    this.starts[this.newest] = this.period > 0 ? start : 0;
  }

  private state(): WindowState {
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

  private checkCompatible(other: WindowBloomFilter, what: string): void {
    if (!(other instanceof WindowBloomFilter)) {
      throw new IncompatibleFiltersError(`${NAME}.${what}: the other filter is not a WindowBloomFilter`);
    }
    if (
      other.hashes !== this.hashes ||
      other.ageSlices !== this.ageSlices ||
      other.sliceBits !== this.sliceBits ||
      other.generation !== this.generation ||
      other.seed !== this.seed ||
      other.window !== this.window ||
      other.duration !== this.duration
    ) {
      throw new IncompatibleFiltersError(
        `${NAME}.${what}: the filters differ in shape, window or seed (k ${this.hashes}/${other.hashes}, l ${this.ageSlices}/${other.ageSlices}, s ${this.sliceBits}/${other.sliceBits}, g ${this.generation}/${other.generation}, seed ${this.seed}/${other.seed})`,
      );
    }
  }
}

/** Set bits in whole bytes, counted by core's bit store (a view, no copy). */
function setBits(bytes: Uint8Array): number {
  return new BitArray(bytes.length * 8, { bytes, copy: false }).popcount();
}

function freshState(
  shape: WindowShape,
  window: number,
  fpr: number,
  duration: number,
  now: number,
): WindowState {
  const slices = shape.hashes + shape.ageSlices;
  const starts = new Float64Array(slices);
  if (duration > 0) {
    // The older generations (empty) began a period apart before now, so `reach` is defined from the start.
    const period = periodOf(duration, shape.ageSlices);
    for (let i = 0; i < slices; i++) starts[i] = now - i * period;
  }
  return { ...shape, window, fpr, duration, newest: 0, count: 0, keys: new Float64Array(slices), starts };
}
