import {
  type BloomFilter,
  type ByteSource,
  type FilterFact,
  type FilterJson,
  FORMAT_VERSION,
  FormatError,
  HEADER_BYTES,
  IncompatibleFiltersError,
  InvalidArgumentError,
  type Key,
  type KindRecord,
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
} from '@bloomkit/core/internal';
import { BitArray, checkClock, crc32c, hashInto } from '@bloomkit/core/kit';
import { RingBatches } from './window-batches.js';
import {
  freshState,
  MAX_DURATION_MS,
  paramsBytes,
  periodOf,
  readWindowParams,
  type WindowState,
  writeWindowParams,
} from './window-codec.js';
import { windowFacts } from './window-facts.js';
import { ADD_WHERE, HAS_WHERE, NAME, windowKind } from './window-kind.js';
import { chooseWindowShape, runRate, type WindowShape } from './window-sizing.js';
import type {
  WindowHorizon,
  WindowOptions,
  WindowReach,
  WindowReadOptions,
  WindowRing,
} from './window-types.js';

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
export class WindowBloomFilter extends RingBatches implements BloomFilter {
  /** The window kind's format record (kind id 7). */
  static readonly kind: KindRecord = windowKind;

  /** The file this filter works on in place (read with `copy: false`), else undefined. */
  private readonly file: Uint8Array | undefined;

  private constructor(
    state: WindowState,
    seed: number,
    bytes: Uint8Array,
    clock: () => number,
    file: Uint8Array | undefined,
  ) {
    super(state, seed, bytes, clock);
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

  /** The window, its slices, what it holds now and when it forgets, for an inspector (window-facts.ts). */
  facts(): FilterFact[] {
    return windowFacts(this);
  }

  /** Adds `key`; true when it was not in the window (so a stream's first sighting in the window is true). */
  add(key: Key): boolean {
    hashInto(key, this.seed, this.hash, ADD_WHERE);
    return this.addHashed();
  }

  /** True when `key` may have been added within the window; false when it certainly was not. */
  has(key: Key): boolean {
    hashInto(key, this.seed, this.hash, HAS_WHERE);
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

  private checkCompatible(other: WindowBloomFilter, what: string): void {
    if (!(other instanceof WindowBloomFilter)) {
      throw new IncompatibleFiltersError(`${NAME}.${what}: the other filter is not a WindowBloomFilter`);
    }
    const shape = (f: WindowBloomFilter) =>
      [f.hashes, f.ageSlices, f.sliceBits, f.generation, f.seed, f.window, f.duration].join();
    if (shape(other) !== shape(this)) {
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
