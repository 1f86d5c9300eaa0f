import { hashInto } from '@bloomkit/core/kit';
import { firstDifference, urlKeys, yieldToRunner } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';

// The ring's batches on the window kernel (wasm/window.wat) against the JavaScript loops, over many generations: the
// long runs of the window's tests, apart from its unit tests so that `pnpm test:quick` can leave them out.

describe('WindowBloomFilter batches on the kernel', () => {
  /** A count window of 3·10^5 keys at 1%: 783 KB of bits, in a kernel memory (from 256 KiB). */
  const kernelReady = () => WindowBloomFilter.create(300_000, 0.01, { seed: 5 });
  /** The same filter on the JavaScript loops: one read in place works on a plain array. */
  const onJavaScript = (filter: WindowBloomFilter) =>
    WindowBloomFilter.deserialize(filter.serialize(), { copy: false });
  /**
   * Whether a ring's bits are where the kernel works on them: core's kernel memory places them 64-byte aligned
   * past the kernel's 64 KiB of scratch; a plain array starts at 0, a ring read in place sits in its file.
   */
  const placed = (filter: WindowBloomFilter) => {
    const { byteOffset } = filter.ring().bytes;
    return byteOffset >= 65536 && byteOffset % 64 === 0;
  };

  it('puts the bits of a ring from 256 KiB where the kernel works on them (create, deserialize, clone)', () => {
    const filter = kernelReady();
    expect(placed(filter)).toBe(true);
    expect(placed(WindowBloomFilter.deserialize(filter.serialize()))).toBe(true);
    expect(placed(filter.clone())).toBe(true);
    expect(placed(onJavaScript(filter))).toBe(false);
    expect(WindowBloomFilter.create(1_000, 0.01).ring().bytes.byteOffset).toBe(0);
  });

  it('addAll, hasMany, addHashes and hasHashes answer as the JavaScript loops, across many generations', async () => {
    const kernel = kernelReady();
    const script = onJavaScript(kernel);
    // 1.2·10^6 adds of 600,000 distinct keys (each twice, the repeat ~300,000 later): 64 generations of 18,750.
    const keys = urlKeys(600_000, 'window-kernel');
    const stream = [...keys.slice(0, 300_000), ...keys, ...keys.slice(300_000)];
    const absent = urlKeys(4_096, 'window-kernel-absent');
    const hash = new Int32Array(4 * 1_000);
    const kernelAnswers = new Uint8Array(1_000);
    const scriptAnswers = new Uint8Array(1_000);
    for (let at = 0, turn = 0; at < stream.length; turn++) {
      const size = [4_096, 1, 999, 20_000, 1_000][turn % 5]!;
      const part = stream.slice(at, at + size);
      at += size;
      if (turn % 5 === 4) {
        for (let j = 0; j < part.length; j++) hashInto(part[j], 5, hash, 'test', 4 * j);
        expect(kernel.addHashes(hash, part.length, kernelAnswers)).toBe(
          script.addHashes(hash, part.length, scriptAnswers),
        );
        expect(kernelAnswers).toEqual(scriptAnswers);
        kernel.hasHashes(hash, part.length, kernelAnswers);
        script.hasHashes(hash, part.length, scriptAnswers);
        expect(kernelAnswers).toEqual(scriptAnswers);
      } else expect(kernel.addAll(part)).toBe(script.addAll(part));
      if (turn % 7 === 0) {
        const probe = [...absent, ...stream.slice(Math.max(0, at - 400_000), at - 395_000)];
        expect(kernel.hasMany(probe)).toEqual(script.hasMany(probe));
      }
      await yieldToRunner();
    }
    expect(kernel.count).toBe(script.count);
    expect(kernel.reach()).toEqual(script.reach());
    expect(firstDifference(kernel.serialize(), script.serialize())).toBeUndefined();
    // The last window of keys is all present, and absent keys at about the rate.
    expect(kernel.hasMany(stream.slice(-300_000)).every(Boolean)).toBe(true);
    const rate = kernel.hasMany(urlKeys(100_000, 'window-kernel-rate')).filter(Boolean).length / 100_000;
    expect(rate).toBeLessThan(0.0125);
  });

  /** A clock that moves `step` ms at every reading (each filter its own, so both see the same readings). */
  const movingClock = (step: number) => {
    const clock = {
      now: 1_000,
      reads: 0,
      read: (): number => {
        clock.reads++;
        clock.now += step;
        return clock.now;
      },
    };
    return clock;
  };

  it('a time window reads its clock once per 1,024 keys of a batch, on the kernel as on the JavaScript loops', async () => {
    // 300,000 keys a minute: generations of 42,858 keys or 7.5 s (elapsed/period + keys/g reaching 1). The clocks
    // move 0.9 ms a reading, and 2 s more between batches, so generations end by time and keys together, at ticks
    // and in the middle of batches.
    const kernelClock = movingClock(0.9);
    const scriptClock = movingClock(0.9);
    const kernel = WindowBloomFilter.create(300_000, 0.01, {
      duration: 60_000,
      clock: kernelClock.read,
      seed: 2,
    });
    const script = WindowBloomFilter.deserialize(kernel.serialize(), {
      copy: false,
      clock: scriptClock.read,
    });
    // `create` read the kernel filter's clock once: from here on both clocks give the same readings.
    scriptClock.now = kernelClock.now;
    scriptClock.reads = kernelClock.reads;
    expect(placed(kernel)).toBe(true);
    const keys = urlKeys(500_000, 'window-kernel-time');
    const stream = [...keys.slice(0, 250_000), ...keys, ...keys.slice(250_000)];
    const hash = new Int32Array(4 * 3_000);
    const kernelAnswers = new Uint8Array(3_000);
    const scriptAnswers = new Uint8Array(3_000);
    const shifts = new Set<number>();
    for (let at = 0, turn = 0; at < stream.length; turn++) {
      const size = [10_000, 1, 1_023, 1_025, 3_000, 40_000][turn % 6]!;
      const part = stream.slice(at, at + size);
      at += size;
      const reads = kernelClock.reads;
      if (turn % 6 === 4) {
        for (let j = 0; j < part.length; j++) hashInto(part[j], 2, hash, 'test', 4 * j);
        expect(kernel.addHashes(hash, part.length, kernelAnswers)).toBe(
          script.addHashes(hash, part.length, scriptAnswers),
        );
        expect(kernelAnswers).toEqual(scriptAnswers);
      } else expect(kernel.addAll(part)).toBe(script.addAll(part));
      expect(kernelClock.reads - reads).toBe(Math.ceil(part.length / 1_024));
      shifts.add(kernel.ring().newest);
      kernelClock.now += 2_000;
      scriptClock.now += 2_000;
      const probe = stream.slice(Math.max(0, at - 70_000), at);
      expect(kernel.hasMany(probe)).toEqual(script.hasMany(probe));
      await yieldToRunner();
    }
    expect(shifts.size).toBe(kernel.hashes + kernel.ageSlices);
    expect(kernelClock.reads).toBe(scriptClock.reads);
    expect(kernel.count).toBe(script.count);
    expect(kernel.reach()).toEqual(script.reach());
    expect(firstDifference(kernel.serialize(), script.serialize())).toBeUndefined();
  });

  it("a time window's batch is add key by key while its clock stands still, in a ring on the kernel and one below it", async () => {
    for (const window of [300_000, 20_000]) {
      let now = 5_000;
      const clock = () => now;
      const batched = WindowBloomFilter.create(window, 0.01, { duration: 10_000, clock, seed: 9 });
      const single = batched.clone();
      expect(placed(batched)).toBe(window === 300_000);
      const keys = urlKeys(window, 'window-time-still');
      const stream = [...keys, ...keys.slice(0, window / 2)];
      const step = window / 20;
      const hash = new Int32Array(4 * step);
      const answers = new Uint8Array(step);
      for (let at = 0; at < stream.length; at += step) {
        const part = stream.slice(at, at + step);
        for (let j = 0; j < part.length; j++) hashInto(part[j], 9, hash, 'test', 4 * j);
        batched.addHashes(hash, part.length, answers);
        expect(Array.from(answers, (a) => a === 1)).toEqual(part.map((key) => single.add(key)));
        now += 1_700;
        await yieldToRunner();
      }
      expect(batched.count).toBe(single.count);
      expect(batched.reach()).toEqual(single.reach());
      expect(firstDifference(batched.serialize(), single.serialize())).toBeUndefined();
    }
  });
});
