import type { Key } from '@bloomkit/core';
import { KernelChoice } from '@bloomkit/core/internal';
import { batchHashes, checkHashBatch, hashBatch, keyList } from '@bloomkit/core/kit';
import { type WindowKernel, windowKernel } from './wasm/window-instance.js';
import { NAME } from './window-kind.js';
import { RingCore } from './window-ring.js';

/** hasMany's answers, a batch at a time (grown once if a batch holds more keys). */
let probeAnswers = new Uint8Array(4096);

/**
 * Keys a batch adds per clock reading of a time window: one kernel call, ~0.16 ms at 10^6 keys (6.5 M keys/s),
 * shorter than the millisecond a `Date.now` reading stands for. So a batch's keys are added at the time their run
 * began, at most that long before they are: a generation may end that much later than key by key, never holding
 * more than g keys.
 */
const KEYS_PER_READING = 1024;

/**
 * A window filter's batches: keys hashed a batch at a time, then added or looked up on the batch kernel
 * (wasm/window.wat) where the ring's bits live in a kernel memory, else on the ring's own steps (window-ring.ts),
 * with the same answers either way.
 */
export abstract class RingBatches extends RingCore {
  /** A time window's copy of the batch being added (see {@link keptHashes}); grown once to the batch size. */
  protected batchCopy: Int32Array = new Int32Array(0);
  /**
   * The batch kernel (wasm/window.wat) over the ring's bits, when they live in a kernel memory (from 256 KiB of
   * bits, as `create`, a copying `deserialize` and `clone` allocate them): made on the first batch, used while the
   * switch of core's kernel/backend.ts is 'auto' (else, or when there is none, the ring's steps run).
   */
  protected readonly kernel: KernelChoice<WindowKernel> = new KernelChoice(() => windowKernel(this.bytes));

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
  protected keptHashes(count: number): Int32Array {
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
  protected addBatch(hashes: Int32Array, count: number, answers: Uint8Array | undefined): number {
    const kernel = this.kernel.get();
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
  protected scriptAdd(hashes: Int32Array, done: number, n: number, answers: Uint8Array | undefined): number {
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
  protected kernelAdd(
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
  protected findBatch(hashes: Int32Array, count: number, answers: Uint8Array): void {
    const kernel = this.kernel.get();
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
}
