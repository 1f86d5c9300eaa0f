import { blockOf, reduceNarrow } from '../narrow.js';

/**
 * The single-key loops: a hashed key's k slots marked or probed in JavaScript, one loop per layout family, each
 * the only TypeScript copy of its family's recurrence (FORMAT.md §5, which these follow bit for bit). The stride
 * loop is also the narrow path of positions.ts's `derivePositions` (through a store that lists the slots), which
 * test/positions.spec.ts holds to the closed form in BigInt; test/engine.spec.ts and the conformance matrix check
 * the blocked loop, and both loops on every store, against `derivePositions`:
 *
 *   p(i) = h1 + h2·i + h3·i² + h4·i³ (mod 2^32), by forward differences: p += Δ1, Δ1 += Δ2, Δ2 += Δ3 from
 *   Δ1 = h2 + h3 + h4, Δ2 = 2·h3 + 6·h4, Δ3 = 6·h4.
 *
 * Each loop marks when `mark` is true (returning non-zero when a slot was empty: the key was new) and probes
 * otherwise (returning 0 at the first empty slot, else 1). The engine calls each with a constant `mark`, so the
 * branch is the same every iteration (predicted, or folded once inlined). Marking ORs what it read, so a half-full
 * filter costs no mispredicted branch per slot. Nothing is allocated.
 */

/** The slots of a store that are not one page of bytes (counters, paged bits): marked and read one at a time. */
export interface SlotStore {
  /** Sets slot `i`; non-zero when it was empty. */
  mark(i: number): number;
  /** Whether slot `i` is set (non-zero). */
  get(i: number): boolean | number;
}

/**
 * The blocked family on one page of bits: the key's block from {@link blockOf}, `blockBytes` bytes each, and in it
 * offset p(i) >>> `shift` (32 − log2 of the block's bits: exactly ⌊p(i) × B × 2^-32⌋ for B a power of two, in
 * integer arithmetic; 44 ns a key against 59–65 in binary64, 9 slots a key on a 64 KiB array).
 */
export function blockedSlots(
  bytes: Uint8Array,
  hash: Int32Array,
  at: number,
  k: number,
  shift: number,
  blockScale: number,
  blockBytes: number,
  mark: boolean,
): number {
  const h1 = hash[at]!;
  const h2 = hash[at + 1]!;
  const h3 = hash[at + 2]!;
  const h4 = hash[at + 3]!;
  let p = h1;
  let d1 = (h2 + h3 + h4) | 0;
  const d3 = Math.imul(h4, 6);
  let d2 = (Math.imul(h3, 2) + d3) | 0;
  const block = blockOf(h1, h2, h3, h4, blockScale) * blockBytes;
  let fresh = 0;
  for (let i = 0; i < k; i++) {
    const offset = p >>> shift;
    const byte = block + (offset >>> 3);
    const bit = 1 << (offset & 7);
    const old = bytes[byte]!;
    if (mark) {
      bytes[byte] = old | bit;
      fresh |= ~old & bit;
    } else if ((old & bit) === 0) return 0;
    p = (p + d1) | 0;
    d1 = (d1 + d2) | 0;
    d2 = (d2 + d3) | 0;
  }
  return mark ? fresh : 1;
}

/**
 * The stride family (standard, partitioned, counting; and blocked geometries the shift does not serve): slot i at
 * base + i·`stride` + ⌊p(i) × `scale`⌋ (narrow.ts's reduction), base the key's block × `blockBits` when
 * `blockScale` is non-zero, else 0. On `bytes` (one page of bits: bit i is bit i & 7 of byte i >>> 3, 5–8% faster
 * than a call per slot) when given; else on `nibbles` (one page of 4-bit counters: counter i is nibble i & 1 of
 * byte i >>> 1, incremented unless saturated at 15, as CounterArray.mark does) when given; else through `store`.
 * The counters' own path matters beyond the call it saves: V8 inlines from the loop's call sites by their past
 * calls, marks and probes alike, so a store's `mark` and `get` shared one inlining budget in `has` and `add`, and
 * counting's `has` called `get` for every slot (10^6 URL keys, one process against the loops before this file:
 * has hit 0.87x; with this path 1.0x).
 */
export function strideSlots(
  bytes: Uint8Array | undefined,
  nibbles: Uint8Array | undefined,
  store: SlotStore,
  hash: Int32Array,
  at: number,
  k: number,
  scale: number,
  stride: number,
  blockScale: number,
  blockBits: number,
  mark: boolean,
): number {
  const h1 = hash[at]!;
  const h2 = hash[at + 1]!;
  const h3 = hash[at + 2]!;
  const h4 = hash[at + 3]!;
  let p = h1;
  let d1 = (h2 + h3 + h4) | 0;
  const d3 = Math.imul(h4, 6);
  let d2 = (Math.imul(h3, 2) + d3) | 0;
  let base = blockScale === 0 ? 0 : blockOf(h1, h2, h3, h4, blockScale) * blockBits;
  let fresh = 0;
  for (let i = 0; i < k; i++) {
    const position = base + reduceNarrow(p >>> 0, scale);
    if (bytes !== undefined) {
      const byte = position >>> 3;
      const bit = 1 << (position & 7);
      const old = bytes[byte]!;
      if (mark) {
        bytes[byte] = old | bit;
        fresh |= ~old & bit;
      } else if ((old & bit) === 0) return 0;
    } else if (nibbles !== undefined) {
      const byte = position >>> 1;
      const shift = (position & 1) << 2;
      const old = nibbles[byte]!;
      const value = (old >>> shift) & 15;
      if (mark) {
        if (value !== 15) nibbles[byte] = old + (1 << shift);
        fresh |= (value - 1) >>> 31;
      } else if (value === 0) return 0;
    } else if (mark) fresh |= store.mark(position);
    else if (!store.get(position)) return 0;
    base += stride;
    p = (p + d1) | 0;
    d1 = (d1 + d2) | 0;
    d2 = (d2 + d3) | 0;
  }
  return mark ? fresh : 1;
}
