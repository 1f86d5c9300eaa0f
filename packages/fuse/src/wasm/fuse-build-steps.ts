import { compileKernel, KernelChoice } from '@bloomkit/core/internal';
import type { BuildSteps, KernelStepsMaker } from '../fuse-build.js';
import type { FuseLayout } from '../fuse-layout.js';
import { FUSE_BUILD_WASM } from './fuse-build-wasm.js';

/** fuse-build.wat's exports. */
interface BuildExports {
  readonly memory: WebAssembly.Memory;
  layout(segmentCountLength: number, segmentLength: number, segmentLengthMask: number): void;
  place(
    size: number,
    keys: number,
    order: number,
    starts: number,
    blockBits: number,
    seedHigh: number,
    seedLow: number,
  ): void;
  count(size: number, order: number, counts: number, xors: number): number;
  peel(capacity: number, order: number, counts: number, xors: number, alone: number, sides: number): number;
  assign(size: number, order: number, sides: number, fingerprints: number, wide: number): void;
}

/**
 * The largest memory a build takes in fuse-build.wat: 2 GiB (about 60 million keys at 33 bytes a key); a larger
 * build runs in JavaScript, whose arrays are separate.
 */
const MAX_BUILD_BYTES = 2 ** 31;

const PAGE = 65536;

/** fuse-build.wat compiled once, under core's one switch: null where it does not compile or the switch says so. */
const BUILD_MODULE = new KernelChoice(() => compileKernel('fuse-build.wat', FUSE_BUILD_WASM) ?? undefined);

/**
 * The build's steps in a new instance of fuse-build.wat, its memory laid out for these keys (the module's header
 * gives the regions), the keys copied in; undefined where the module does not compile, the switch is 'javascript',
 * the build would need more than {@link MAX_BUILD_BYTES} or the memory cannot be had (the JavaScript steps run).
 */
export const kernelBuildSteps: KernelStepsMaker = (keys, layout, block) => {
  const compiled = BUILD_MODULE.get();
  if (compiled === null) return undefined;
  const size = keys.length / 2;
  const capacity = layout.arrayLength;
  const regions = new Regions();
  const at = {
    keys: regions.take(8 * size),
    order: regions.take(8 * (size + 1)),
    xors: regions.take(8 * capacity),
    // Two entries to spare: the queue never holds more than `capacity`, and a stray write stays inside.
    alone: regions.take(4 * (capacity + 2)),
    starts: regions.take(4 * block),
    counts: regions.take(capacity),
    sides: regions.take(size),
    fingerprints: regions.take(2 * capacity),
  };
  if (regions.end > MAX_BUILD_BYTES) return undefined;
  let exports: BuildExports;
  try {
    if (regions.end <= SHARED_BYTES) {
      // A small build reuses the one kept instance (making one costs about 150 us, a build of 100 keys 40 us).
      shared ??= instance(compiled, 0);
      exports = shared;
      grow(exports.memory, regions.end);
      new Uint8Array(exports.memory.buffer, 0, regions.end).fill(0);
    } else {
      exports = instance(compiled, regions.end);
    }
  } catch {
    return undefined;
  }
  return new WasmSteps(exports, keys, layout, at);
};

/**
 * Builds whose regions fit this many bytes (about 120,000 keys) share one instance, kept for the process with its
 * memory grown to the largest of them; a larger build gets an instance of its own, dropped with its memory after.
 */
const SHARED_BYTES = 4 * 1024 * 1024;

let shared: BuildExports | undefined;

/** A new instance of fuse-build.wat whose memory holds `bytes`. */
function instance(compiled: WebAssembly.Module, bytes: number): BuildExports {
  const exports = new WebAssembly.Instance(compiled, {}).exports as unknown as BuildExports;
  grow(exports.memory, bytes);
  return exports;
}

/** Grows `memory` to hold at least `bytes`. */
function grow(memory: WebAssembly.Memory, bytes: number): void {
  const pages = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
  if (pages > 0) memory.grow(pages);
}

/** Consecutive regions of a memory, each 8-byte aligned. */
class Regions {
  end = 0;

  take(bytes: number): number {
    const at = this.end;
    this.end += Math.ceil(bytes / 8) * 8;
    return at;
  }
}

/** The steps on fuse-build.wat, over one instance's memory (grown once, before these views). */
class WasmSteps implements BuildSteps {
  readonly keys: Uint32Array;
  readonly starts: Uint32Array;
  private readonly capacity: number;
  private readonly memory: Uint8Array;

  constructor(
    private readonly exports: BuildExports,
    keys: Uint32Array,
    layout: FuseLayout,
    private readonly at: Record<
      'keys' | 'order' | 'xors' | 'alone' | 'starts' | 'counts' | 'sides' | 'fingerprints',
      number
    >,
  ) {
    const buffer = exports.memory.buffer;
    this.capacity = layout.arrayLength;
    this.memory = new Uint8Array(buffer);
    this.keys = new Uint32Array(buffer, at.keys, keys.length);
    this.keys.set(keys);
    this.starts = new Uint32Array(buffer, at.starts, (at.counts - at.starts) / 4);
    // The reference's sentinel after the placement's entries.
    new Uint32Array(buffer, at.order + 4 * keys.length, 2).set([1, 0]);
    exports.layout(layout.segmentCountLength, layout.segmentLength, layout.segmentLengthMask);
  }

  clear(size: number): void {
    const { memory, capacity } = this;
    const at = this.at;
    memory.fill(0, at.order, at.order + 8 * size);
    memory.fill(0, at.counts, at.counts + capacity);
    memory.fill(0, at.xors, at.xors + 8 * capacity);
  }

  place(size: number, blockBits: number, seedHigh: number, seedLow: number): void {
    const at = this.at;
    this.exports.place(size, at.keys, at.order, at.starts, blockBits, seedHigh, seedLow);
  }

  count(size: number): number {
    const at = this.at;
    return this.exports.count(size, at.order, at.counts, at.xors);
  }

  peel(): number {
    const at = this.at;
    return this.exports.peel(this.capacity, at.order, at.counts, at.xors, at.alone, at.sides);
  }

  assign(size: number, bytes: Uint8Array, bits: 8 | 16): void {
    const at = this.at;
    this.exports.assign(size, at.order, at.sides, at.fingerprints, bits === 16 ? 1 : 0);
    bytes.set(this.memory.subarray(at.fingerprints, at.fingerprints + bytes.length));
  }
}
