import type { StorageOptions } from './bit-array.js';
import { InvalidArgumentError } from './errors.js';
import {
  allocatePages,
  checkPageBytes,
  copyPagesTo,
  DEFAULT_PAGE_BYTES,
  pagesEqual,
  pagesOf,
} from './pages.js';
import { lengthOf } from './parts.js';
import { MAX_BITS } from './positions.js';
import type { FilterStore } from './storage.js';

/** Allowed counter widths in bits. */
export type CounterBits = 4 | 8 | 16;
/** The counter widths a CounterArray takes, smallest first. */
export const COUNTER_BITS: readonly CounterBits[] = [4, 8, 16];

/**
 * A fixed-size array of unsigned counters of 4, 8 or 16 bits, packed into bytes exactly as they are serialized:
 * 4-bit counter i is the low nibble of byte ⌊i / 2⌋ when i is even and the high nibble when odd; 8-bit counter i
 * is byte i; 16-bit counter i is bytes 2i (low) and 2i + 1 (high), little-endian on every platform.
 *
 * Increment saturates at the maximum (2^width − 1) and a saturated counter is sticky: decrement leaves it there,
 * because its true count is unknown and lowering it could create a false negative (Fan et al., "Summary Cache",
 * IEEE/ACM ToN 2000, §V.C). Decrement refuses to go below zero. Large arrays are paged like {@link BitArray}.
 */
export class CounterArray implements FilterStore<CounterArray> {
  /** Number of counters. */
  readonly size: number;
  /** Bits per counter. */
  readonly width: CounterBits;
  /** The saturation value, 2^width − 1. */
  readonly max: number;
  /** Number of bytes: ⌈size · width / 8⌉. */
  readonly byteLength: number;
  /** The storage, in order. Read-only by contract. */
  readonly pages: readonly Uint8Array[];
  private readonly first: Uint8Array;
  private readonly paged: boolean;
  private readonly pageBytes: number;
  /** log2(bytes per counter) for widths 8 and 16; -1 for 4-bit counters (two per byte). */
  private readonly shift: number;

  constructor(
    size: number,
    width: CounterBits,
    options: StorageOptions & { bytes?: Uint8Array | readonly Uint8Array[]; copy?: boolean } = {},
  ) {
    if (!Number.isInteger(size) || size < 1 || size > MAX_BITS) {
      throw new InvalidArgumentError(`CounterArray: size must be an integer in [1, 2^48], got ${size}`);
    }
    if (!COUNTER_BITS.includes(width)) {
      throw new InvalidArgumentError(`CounterArray: width must be one of 4, 8, 16, got ${width}`);
    }
    this.pageBytes = checkPageBytes('CounterArray', options.pageBytes ?? DEFAULT_PAGE_BYTES);
    this.size = size;
    this.width = width;
    this.max = 2 ** width - 1;
    this.shift = width === 4 ? -1 : width === 8 ? 0 : 1;
    this.byteLength = Math.ceil((size * width) / 8);
    const { bytes } = options;
    if (bytes !== undefined && lengthOf(bytes) !== this.byteLength) {
      throw new InvalidArgumentError(
        `CounterArray: bytes must hold exactly ${this.byteLength} bytes for ${size} ${width}-bit counters, got ${lengthOf(bytes)}`,
      );
    }
    this.pages =
      bytes === undefined
        ? allocatePages(this.byteLength, this.pageBytes)
        : pagesOf(bytes, this.pageBytes, options.copy ?? true);
    this.first = this.pages[0]!;
    this.paged = this.pages.length > 1;
  }

  /** The value of counter `i`. */
  get(i: number): number {
    if (!this.paged) {
      const bytes = this.first;
      const shift = this.shift;
      if (shift < 0) return (bytes[i >>> 1]! >>> ((i & 1) << 2)) & 0x0f;
      if (shift === 0) return bytes[i]!;
      return bytes[2 * i]! | (bytes[2 * i + 1]! << 8);
    }
    const shift = this.shift;
    if (shift < 0) {
      const at = Math.floor(i / 2);
      return (this.byteOf(at) >>> ((i - 2 * at) << 2)) & 0x0f;
    }
    if (shift === 0) return this.byteOf(i);
    return this.byteOf(2 * i) | (this.byteOf(2 * i + 1) << 8);
  }

  /**
   * Increments counter `i` unless saturated; returns 1 when it was 0 before (the slot was empty), else 0. The
   * engine ORs the results of a key's k counters, as it does a BitArray's {@link BitArray.mark}.
   */
  mark(i: number): number {
    if (!this.paged && this.shift < 0) {
      // The common 4-bit case, inline: nibble (i & 1) of byte i >> 1.
      const bytes = this.first;
      const at = i >>> 1;
      const shift = (i & 1) << 2;
      const byte = bytes[at]!;
      const value = (byte >>> shift) & 0x0f;
      if (value !== 0x0f) bytes[at] = byte + (1 << shift);
      return (value - 1) >>> 31;
    }
    // Counters saturate at 15 or more, so the new value is 1 exactly when the counter was empty.
    return this.increment(i) === 1 ? 1 : 0;
  }

  /** Counters are never read as bits: undefined (see FilterStore.bitBytes). */
  get bitBytes(): undefined {
    return undefined;
  }

  /** The bytes of one page of 4-bit counters (see FilterStore.nibbleBytes); undefined when paged or wider. */
  get nibbleBytes(): Uint8Array | undefined {
    return !this.paged && this.shift < 0 ? this.first : undefined;
  }

  /** The counter width in bits (recorded in the params block). */
  get counterBits(): number {
    return this.width;
  }

  /** Number of non-zero counters. */
  setCount(): number {
    return this.nonZeroCount();
  }

  /** Adds one unless saturated; returns the new value. */
  increment(i: number): number {
    const value = this.get(i);
    if (value === this.max) return value;
    this.put(i, value + 1);
    return value + 1;
  }

  /**
   * Subtracts one; returns false (changing nothing) when the counter is 0. A saturated counter stays saturated
   * (and the call returns true): see the class comment.
   */
  decrement(i: number): boolean {
    const value = this.get(i);
    if (value === 0) return false;
    if (value !== this.max) this.put(i, value - 1);
    return true;
  }

  /** Sets counter `i` to `value` (0 ≤ value ≤ max, not checked on this hot path). */
  set(i: number, value: number): void {
    this.put(i, value);
  }

  /** Number of counters at the maximum. */
  saturatedCount(): number {
    let total = 0;
    for (let i = 0; i < this.size; i++) if (this.get(i) === this.max) total++;
    return total;
  }

  /** Number of non-zero counters. */
  nonZeroCount(): number {
    let total = 0;
    for (let i = 0; i < this.size; i++) if (this.get(i) !== 0) total++;
    return total;
  }

  /** Sets every counter to 0. */
  clear(): void {
    for (const page of this.pages) page.fill(0);
  }

  /**
   * Counter-wise saturating sum with `other` (same size and width): the counters of the union of two multisets.
   * A saturated counter stays saturated.
   */
  unionWith(other: CounterArray): void {
    this.checkSameShape(other);
    for (let i = 0; i < this.size; i++) {
      const sum = this.get(i) + other.get(i);
      if (sum !== 0) this.put(i, sum > this.max ? this.max : sum);
    }
  }

  /** Counter-wise minimum with `other` (same size and width). */
  intersectWith(other: CounterArray): void {
    this.checkSameShape(other);
    for (let i = 0; i < this.size; i++) {
      const theirs = other.get(i);
      if (theirs < this.get(i)) this.put(i, theirs);
    }
  }

  /** True when both hold the same counters. */
  equals(other: CounterArray): boolean {
    if (other.size !== this.size || other.width !== this.width) return false;
    if (other.pageBytes === this.pageBytes) return pagesEqual(this.pages, other.pages);
    for (let i = 0; i < this.size; i++) if (this.get(i) !== other.get(i)) return false;
    return true;
  }

  /** An independent copy. */
  clone(): CounterArray {
    // Page by page: one array of the whole would fail past one typed array's limit (4 GiB on Node 20).
    const pages = this.pages.map((page) => page.slice());
    return new CounterArray(this.size, this.width, { bytes: pages, copy: false, pageBytes: this.pageBytes });
  }

  /** Copies the bytes (the serialized payload) into `target` from `offset`. */
  copyTo(target: Uint8Array, offset: number): void {
    copyPagesTo(this.pages, target, offset);
  }

  /** True when the unused high nibble of the last byte (odd count of 4-bit counters) is not zero. */
  hasPaddingBits(): boolean {
    if (this.width !== 4 || this.size % 2 === 0) return false;
    const last = this.pages[this.pages.length - 1]!;
    return last[last.length - 1]! >>> 4 !== 0;
  }

  private checkSameShape(other: CounterArray): void {
    if (other.size !== this.size || other.width !== this.width) {
      throw new InvalidArgumentError(
        `CounterArray: shapes differ (${this.size} × ${this.width} bits and ${other.size} × ${other.width} bits)`,
      );
    }
  }

  private put(i: number, value: number): void {
    const shift = this.shift;
    if (shift < 0) {
      // The nibble without `%` (on a double, V8 calls fmod): i − 2·at is 0 or 1, exact for every i up to 2^48.
      const at = Math.floor(i / 2);
      const nibble = (i - 2 * at) << 2;
      this.putByte(at, (this.byteOf(at) & (0xf0 >>> nibble)) | (value << nibble));
    } else if (shift === 0) {
      this.putByte(i, value);
    } else {
      this.putByte(2 * i, value & 0xff);
      this.putByte(2 * i + 1, value >>> 8);
    }
  }

  private byteOf(at: number): number {
    if (!this.paged) return this.first[at]!;
    const p = Math.floor(at / this.pageBytes);
    return this.pages[p]![at - p * this.pageBytes]!;
  }

  private putByte(at: number, value: number): void {
    if (!this.paged) {
      this.first[at] = value;
      return;
    }
    const p = Math.floor(at / this.pageBytes);
    this.pages[p]![at - p * this.pageBytes] = value;
  }
}
