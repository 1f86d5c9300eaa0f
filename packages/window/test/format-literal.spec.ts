import { hashInto } from '@bloomkit/core/kit';
import { assertInSlices } from '@bloomkit/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowBloomFilter } from '../src/index.js';

// A second implementation of docs/FORMAT.md §3.6, written from its text alone and deliberately literal (BigInt for
// §5's cubic, the steps in the order the text gives them; §4's hash from core). It reads the library's file, then
// runs the same history of clock readings, adds and lookups: every answer must agree, and after every operation
// every field and bit of the library's file must equal the literal state.

interface LiteralState {
  newest: number;
  count: number;
  keys: number[];
  starts: number[];
  bits: Uint8Array;
}

class LiteralWindow {
  readonly k: number;
  readonly l: number;
  readonly s: number;
  readonly g: number;
  readonly P: number;
  readonly timed: boolean;
  readonly seed: number;
  readonly state: LiteralState;

  /** Reads a file's header (§1) and window params (§3.6 table) and payload. */
  constructor(file: Uint8Array) {
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const u64 = (at: number) => view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
    this.seed = view.getUint32(8, true);
    const paramsLength = view.getUint16(12, true);
    const p = 24;
    this.k = view.getUint8(p);
    this.timed = (view.getUint8(p + 1) & 1) === 1;
    this.l = view.getUint16(p + 2, true);
    this.g = u64(p + 16);
    this.s = u64(p + 24);
    const duration = view.getFloat64(p + 48, true);
    this.P = this.timed ? duration / Math.ceil((this.l + 1) / 2) : 0;
    const slices = this.k + this.l;
    expect(paramsLength).toBe(64 + 16 * slices);
    const keys: number[] = [];
    const starts: number[] = [];
    for (let j = 0; j < slices; j++) {
      keys.push(u64(p + 64 + 16 * j));
      starts.push(view.getFloat64(p + 72 + 16 * j, true));
    }
    const payload = file.slice(24 + paramsLength, 24 + paramsLength + (slices * this.s) / 8);
    this.state = { newest: view.getUint16(p + 4, true), count: u64(p + 32), keys, starts, bits: payload };
  }

  private get slices(): number {
    return this.k + this.l;
  }

  /** "The newest generation's end": start_n + P × (1 − keys_n / g), in that order. */
  private end(): number {
    const n = this.state.newest;
    const q = this.state.keys[n]! / this.g;
    const d = 1 - q;
    const e = this.P * d;
    return this.state.starts[n]! + e;
  }

  /** "Ending the generation at time e". */
  private endGeneration(e: number): void {
    const st = this.state;
    st.newest = (((st.newest - 1) % this.slices) + this.slices) % this.slices;
    for (let i = st.newest * this.s; i < (st.newest + 1) * this.s; i++) this.setBit(i, 0);
    st.keys[st.newest] = 0;
    st.starts[st.newest] = this.timed ? e : 0;
  }

  /** "Reading the clock at r": returns t. */
  private readClock(r: number): number {
    if (!this.timed) return 0;
    const n = () => this.state.newest;
    const t = r < this.state.starts[n()]! ? this.state.starts[n()]! : r;
    for (let i = 0; ; i++) {
      const end = this.end();
      if (t < end || (this.state.keys[n()] === 0 && this.state.starts[n()] === t)) break;
      if (i === this.slices) {
        this.state.starts[n()] = t;
        break;
      }
      this.endGeneration(end);
    }
    return t;
  }

  /** §5 with k + l positions of range s, for slice j: bit j·s + ⌊p(j) × (s × 2^-32)⌋. */
  private bitIndex(h: readonly number[], j: number): number {
    const J = BigInt(j);
    const [h1, h2, h3, h4] = h.map((w) => BigInt(w >>> 0));
    const p = (h1! + h2! * J + h3! * J * J + h4! * J * J * J) % 2n ** 32n;
    return j * this.s + Math.floor(Number(p) * (this.s * 2 ** -32));
  }

  private getBit(i: number): number {
    return (this.state.bits[i >>> 3]! >>> (i & 7)) & 1;
  }

  private setBit(i: number, value: number): void {
    if (value === 1) this.state.bits[i >>> 3]! |= 1 << (i & 7);
    else this.state.bits[i >>> 3]! &= ~(1 << (i & 7));
  }

  private hash(key: string): number[] {
    const out = new Int32Array(4);
    hashInto(key, this.seed, out, 'literal');
    return Array.from(out);
  }

  /** The slice of age a. */
  private slice(a: number): number {
    return (this.state.newest + a) % this.slices;
  }

  /** A run of k consecutive ages within 0 … last all holding the key's bit (`bitAt(a)`). */
  private hasRun(bitAt: (a: number) => number, last: number): boolean {
    for (let a = 0; a + this.k - 1 <= last; a++) {
      let all = true;
      for (let b = a; b < a + this.k; b++) if (bitAt(b) !== 1) all = false;
      if (all) return true;
    }
    return false;
  }

  /** "Add of a key at reading r". */
  add(key: string, r: number): boolean {
    const t = this.readClock(r);
    const h = this.hash(key);
    const before: number[] = [];
    for (let a = 0; a < this.k; a++) {
      const i = this.bitIndex(h, this.slice(a));
      before.push(this.getBit(i));
      this.setBit(i, 1);
    }
    if (before.every((bit) => bit === 1)) return false;
    const bitAt = (a: number) => (a < this.k ? before[a]! : this.getBit(this.bitIndex(h, this.slice(a))));
    const presentBefore = this.hasRun(bitAt, this.slices - 1);
    const n = this.state.newest;
    this.state.keys[n]! += 1;
    if (this.state.keys[n]! >= this.g || (this.timed && t >= this.end()))
      this.endGeneration(this.timed ? t : 0);
    if (presentBefore) return false;
    if (this.state.count < 2 ** 53 - 1) this.state.count++;
    return true;
  }

  /** "Lookup of a key at reading r". */
  has(key: string, r: number): boolean {
    this.readClock(r);
    const h = this.hash(key);
    return this.hasRun((a) => this.getBit(this.bitIndex(h, this.slice(a))), this.slices - 1);
  }
}

const T = 1_700_000_000_000;

/** One step of a history: a clock movement, then an add or a lookup of key `key` (a small alphabet: repeats). */
const stepArb = fc.record({
  move: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 400 }) },
    { weight: 2, arbitrary: fc.integer({ min: -5_000, max: 0 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 3_600_000, 10 * 365 * 86_400_000, -60_000) },
    { weight: 1, arbitrary: fc.double({ min: -1_000, max: 1_000, noNaN: true }) },
  ),
  add: fc.boolean(),
  key: fc.integer({ min: 0, max: 60 }),
});

const historyArb = fc.record({
  window: fc.integer({ min: 1, max: 40 }),
  fpr: fc.constantFrom(0.5, 0.1, 0.01),
  duration: fc.constantFrom(undefined, 1, 7, 100, 1_000, 3_000),
  seed: fc.constantFrom(0, 0x9747b28c),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 24 }),
});

/** The clock every filter of the test reads: each history sets it. */
let now = T;
const shapes = new Map<string, WindowBloomFilter>();

/** A new filter as `create` makes it at time T (sizing is the slow part: made once per shape, then cloned). */
function fresh(window: number, fpr: number, duration: number | undefined, seed: number): WindowBloomFilter {
  now = T;
  const name = `${window}/${fpr}/${duration}/${seed}`;
  let made = shapes.get(name);
  if (made === undefined) {
    made = WindowBloomFilter.create(window, fpr, { seed, duration, clock: () => now });
    shapes.set(name, made);
  }
  return made.clone();
}

/** Field by field and bit by bit, fast; vitest's deep equality only to show a difference. */
function expectSame(written: LiteralState, literal: LiteralState): void {
  const same =
    written.newest === literal.newest &&
    written.count === literal.count &&
    written.keys.every((held, j) => held === literal.keys[j]) &&
    written.starts.every((start, j) => Object.is(start, literal.starts[j])) &&
    written.bits.length === literal.bits.length &&
    written.bits.every((byte, i) => byte === literal.bits[i]);
  if (!same) expect(written).toEqual(literal);
}

describe('docs/FORMAT.md §3.6 read literally', () => {
  it('a literal implementation and the library agree on 10^5 random histories, answer by answer and bit by bit', async () => {
    await assertInSlices(
      fc.property(historyArb, ({ window, fpr, duration, seed, steps }) => {
        const filter = fresh(window, fpr, duration, seed);
        const literal = new LiteralWindow(filter.serialize());
        for (const step of steps) {
          now = Math.min(2 ** 47, Math.max(0, now + step.move));
          const key = `key-${step.key}`;
          const answer = step.add ? filter.add(key) : filter.has(key);
          if (answer !== (step.add ? literal.add(key, now) : literal.has(key, now))) {
            expect([step, answer]).toEqual([step, !answer]);
          }
          expectSame(new LiteralWindow(filter.serialize()).state, literal.state);
        }
      }),
      { numRuns: Number(process.env.BLOOMKIT_LITERAL_RUNS ?? 100_000), seed: 3_6, sliceRuns: 100 },
    );
  }, 600_000);
});
