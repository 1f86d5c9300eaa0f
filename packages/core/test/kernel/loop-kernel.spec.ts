import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchHashes, hashBatch } from '../../src/batch-hash.js';
import { LoopKernel } from '../../src/kernel/loop-kernel.js';
import { blockedLayout } from '../../src/layouts/blocked.js';
import { standardLayout } from '../../src/layouts/standard.js';
import { narrowScale } from '../../src/narrow.js';
import { newBitArray } from '../../src/new-bit-array.js';
import { blockedKernel } from '../../src/wasm/blocked-instance.js';
import type { BatchKernel } from '../../src/wasm/kernel-memory.js';
import { strideKernel } from '../../src/wasm/stride-instance.js';

// Each run makes two filters of 512 KiB in kernel memory: a few runs, each with thousands of keys.
const RUNS = 20;

/** Two copies of one filter's bits in kernel memory: one for the WebAssembly kernel, one for the loops. */
function pair(layout: 'standard' | 'blocked', bits: number, k: number) {
  const geometry = (layout === 'blocked' ? blockedLayout : standardLayout).geometry(bits, k);
  const stores = [newBitArray(bits), newBitArray(bits)];
  const blocks = geometry.blocks ?? 1;
  const blockShift = layout === 'blocked' ? 32 - Math.log2(geometry.range) : 0;
  const loops = new LoopKernel({
    store: stores[1]!,
    geometry,
    hashes: k,
    scale: narrowScale(geometry.range),
    stride: geometry.stride,
    blockScale: blocks > 1 ? narrowScale(blocks) : 0,
    blockBits: geometry.range,
    blockShift,
    narrow: true,
  });
  const wasm =
    layout === 'blocked' ? blockedKernel(stores[0]!.bitBytes!) : strideKernel(stores[0]!.bitBytes!, k);
  const scale = layout === 'blocked' ? narrowScale(blocks) : narrowScale(geometry.range);
  const step = layout === 'blocked' ? blockShift : geometry.stride;
  return { stores, loops, wasm: wasm!, scale, step };
}

describe('the JavaScript loops as a batch kernel', () => {
  it.each(['standard', 'blocked'] as const)(
    '%s: run, and mark/probe on its own buffers, answer and write what the WebAssembly kernel does',
    (layout) => {
      fc.assert(
        fc.property(
          fc.array(fc.string(), { minLength: 1, maxLength: 3000 }),
          fc.integer({ min: 1, max: 12 }),
          (keys, k) => {
            const { stores, loops, wasm, scale, step } = pair(layout, 4 * 1024 * 1024, k);
            expect(wasm).toBeDefined();
            const answers = [new Uint8Array(keys.length), new Uint8Array(keys.length)];
            let fromWasm = 0;
            let fromLoops = 0;
            for (let start = 0; start < keys.length; ) {
              const count = hashBatch(keys, start, 0, 'test');
              const hashes = batchHashes();
              fromWasm += wasm.run(hashes, count, true, answers[0]!.subarray(start), scale, step, k);
              fromLoops += (loops as BatchKernel).run(
                hashes,
                count,
                true,
                answers[1]!.subarray(start),
                scale,
                step,
                k,
              );
              start += count;
            }
            expect(fromLoops).toBe(fromWasm);
            expect(Buffer.compare(answers[1]!, answers[0]!)).toBe(0);
            expect(Buffer.compare(stores[1]!.bitBytes!, stores[0]!.bitBytes!)).toBe(0);
            // probe through the loop kernel's own buffers, as a WebAssembly kernel is driven
            const count = hashBatch(keys, 0, 0, 'test');
            loops.hashes.set(batchHashes().subarray(0, 4 * count));
            expect(loops.probe(count)).toBe(count);
            expect([...loops.answers.subarray(0, count)].every((a) => a === 1)).toBe(true);
            expect(loops.mark(count)).toBe(0);
          },
        ),
        { numRuns: RUNS },
      );
    },
  );
});
