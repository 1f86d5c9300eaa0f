import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type KernelBackend, setKernelBackend } from '../../src/kernel/backend.js';
import type { KindRecord } from '../../src/kinds.js';
import { hashInto } from '../../src/murmur3.js';
import { derivePositions } from '../../src/positions.js';
import { KERNEL_FROM_BYTES } from '../../src/wasm/kernel-memory.js';
import { storageOf } from '../support/kernel-place.js';
import {
  TOY_BLOCKED,
  TOY_COUNTING,
  TOY_PARTITIONED,
  TOY_STANDARD,
  ToyCountingFilter,
  toyBitFilterClass,
} from '../support/toy-filter.js';

/**
 * The conformance matrix: every way a key reaches its slots (the single-key loops of kernel/slot-loops.ts, the
 * batch on the JavaScript loops, the batch on a WebAssembly kernel of kernel/bit-kernels.ts) × every layout family
 * and store (standard, partitioned and blocked bits; 4-, 8- and 16-bit counters), against the definition: the
 * positions `derivePositions` gives (FORMAT.md §5), marked in a plain model. Answers, counts and bytes must agree.
 */

/** One cell's filter: the toy class of a layout over bits, or counters of a width. */
interface Cell {
  readonly name: string;
  readonly kind: KindRecord;
  readonly counterBits: 0 | 4 | 8 | 16;
  /** Slots in a filter of at least `bytes` bytes of payload and k hashes (a partitioned m is a multiple of k). */
  slotsFor(bytes: number, k: number): number;
  make(slots: number, k: number, seed: number): Filter;
}

type Filter = InstanceType<ReturnType<typeof toyBitFilterClass>> | ToyCountingFilter;

const bitCell = (name: string, kind: KindRecord, multiple: (k: number) => number): Cell => {
  const Class = toyBitFilterClass(kind);
  return {
    name,
    kind,
    counterBits: 0,
    slotsFor: (bytes, k) => Math.ceil((bytes * 8) / multiple(k)) * multiple(k),
    make: (slots, k, seed) => new Class({ bits: slots, hashes: k, seed }),
  };
};

const counterCell = (width: 4 | 8 | 16): Cell => ({
  name: `counting ${width}-bit`,
  kind: TOY_COUNTING,
  counterBits: width,
  slotsFor: (bytes) => Math.floor((bytes * 8) / width),
  make: (slots, k, seed) => new ToyCountingFilter({ bits: slots, hashes: k, seed, counterBits: width }),
});

const CELLS: readonly Cell[] = [
  bitCell('standard', TOY_STANDARD, () => 1),
  bitCell('partitioned', TOY_PARTITIONED, (k) => 8 * k),
  bitCell('blocked', TOY_BLOCKED, () => 512),
  counterCell(4),
  counterCell(8),
  counterCell(16),
];

/** How the keys go in and are looked up. */
type Path = 'single' | 'batch on javascript' | 'batch on webassembly';
const PATHS: readonly Path[] = ['single', 'batch on javascript', 'batch on webassembly'];

/** The definition: each key's slots from derivePositions, counted in a plain array (counters saturate). */
class Model {
  readonly counts: Uint32Array;
  private readonly hash = new Int32Array(4);
  private readonly positions: Float64Array;
  constructor(
    private readonly cell: Cell,
    private readonly slots: number,
    private readonly k: number,
    private readonly seed: number,
  ) {
    this.counts = new Uint32Array(slots);
    this.positions = new Float64Array(k);
  }
  private slotsOf(key: string): Float64Array {
    hashInto(key, this.seed, this.hash, 'model');
    derivePositions(this.hash, this.cell.kind.layout.geometry(this.slots, this.k), this.k, this.positions);
    return this.positions;
  }
  add(key: string): boolean {
    const max = this.cell.counterBits === 0 ? 1 : 2 ** this.cell.counterBits - 1;
    let fresh = false;
    for (const p of this.slotsOf(key)) {
      if (this.counts[p] === 0) fresh = true;
      if (this.counts[p]! < max) this.counts[p]!++;
    }
    // A key whose slots repeat marks each once for bits, and adds once per occurrence for counters: re-count.
    if (this.cell.counterBits === 0) for (const p of this.positions) this.counts[p] = 1;
    return fresh;
  }
  has(key: string): boolean {
    for (const p of this.slotsOf(key)) if (this.counts[p] === 0) return false;
    return true;
  }
  /** The payload as FORMAT.md §3.1–3.3 lays it out: bit i in byte i >>> 3; counters little-endian, low nibble first. */
  bytes(): Uint8Array {
    const width = this.cell.counterBits;
    const out = new Uint8Array(width === 0 ? Math.ceil(this.slots / 8) : Math.ceil((this.slots * width) / 8));
    for (let i = 0; i < this.slots; i++) {
      const c = this.counts[i]!;
      if (width === 0) out[i >>> 3]! |= c === 0 ? 0 : 1 << (i & 7);
      else if (width === 4) out[i >>> 1]! |= c << ((i & 1) * 4);
      else if (width === 8) out[i] = c;
      else {
        out[2 * i] = c & 0xff;
        out[2 * i + 1] = c >>> 8;
      }
    }
    return out;
  }
}

function payload(filter: Filter): Uint8Array {
  const parts = filter.payloadParts();
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Where two payloads first differ, with both bytes there; undefined when they are equal (a deep equal of 256 KiB is slow). */
function firstDifference(actual: Uint8Array, expected: Uint8Array): string | undefined {
  if (actual.length !== expected.length) return `lengths ${actual.length} vs ${expected.length}`;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) return `byte ${i}: ${actual[i]} vs ${expected[i]}`;
  }
  return undefined;
}

/** fast-check runs per cell and path: 40, a quarter in `pnpm test:quick` (as testkit's `depth`; core cannot import it). */
const RUNS = process.env.BLOOMKIT_QUICK === '1' ? 10 : 40;

let restore: KernelBackend | undefined;
afterEach(() => {
  if (restore !== undefined) setKernelBackend(restore);
  restore = undefined;
});

describe('the kernel conformance matrix', () => {
  describe.each(CELLS)('$name', (cell) => {
    it.each(PATHS)('%s: answers, count and bytes are the definition’s', (path) => {
      restore = setKernelBackend(path === 'batch on javascript' ? 'javascript' : 'auto');
      // A kernel runs on bits in a kernel memory (from 256 KiB); the other paths are checked there and below it.
      const sizes = path === 'batch on webassembly' ? [KERNEL_FROM_BYTES] : [4096, 4096, KERNEL_FROM_BYTES];
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.string({ minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 300 }),
          fc.array(fc.string({ maxLength: 24 }), { maxLength: 100 }),
          fc.integer({ min: 1, max: 24 }),
          fc.nat(0xffffffff),
          fc.constantFrom(...sizes),
          (added, probed, k, seed, bytes) => {
            const slots = cell.slotsFor(bytes, k);
            const filter = cell.make(slots, k, seed);
            const model = new Model(cell, slots, k, seed);
            const expected = added.map((key) => model.add(key));
            if (path === 'single') {
              expect(added.map((key) => filter.add(key))).toEqual(expected);
            } else {
              expect(filter.addAll(added)).toBe(expected.filter(Boolean).length);
            }
            expect(filter.count).toBe(expected.filter(Boolean).length);
            expect(firstDifference(payload(filter), model.bytes())).toBeUndefined();
            const lookups = [...probed, ...added];
            const answers = lookups.map((key) => model.has(key));
            if (path === 'single') expect(lookups.map((key) => filter.has(key))).toEqual(answers);
            else expect(filter.hasMany(lookups)).toEqual(answers);
          },
        ),
        { numRuns: RUNS },
      );
    });
  });

  it('runs the webassembly paths on a kernel: bits of 256 KiB lie in a kernel memory, past its scratch', () => {
    for (const cell of CELLS) {
      const filter = cell.make(cell.slotsFor(KERNEL_FROM_BYTES, 7), 7, 1);
      expect([cell.name, storageOf(filter).byteOffset > 0]).toEqual([cell.name, true]);
    }
  });
});
