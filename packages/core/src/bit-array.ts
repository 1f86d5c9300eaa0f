import { InvalidArgumentError } from './errors.js';
import {
  allocatePages,
  checkPageBytes,
  copyPagesTo,
  DEFAULT_PAGE_BYTES,
  pagesEqual,
  pagesOf,
  wordView,
} from './pages.js';
import { lengthOf } from './parts.js';
import { MAX_BITS } from './positions.js';
import type { FilterStore } from './storage.js';

/** Options for storage with more than one page; the default suits everything but tests of the page boundary. */
export interface StorageOptions {
  /** Bytes per page: a power of two in [8, 2^29]. Default 2^29 (512 MiB). */
  readonly pageBytes?: number;
}

/**
 * A fixed-size array of bits. Bit i is bit (i mod 8) of byte ⌊i / 8⌋, least significant first: the byte layout of
 * the serialized payload, so serializing is a copy and deserializing can be a view.
 *
 * Up to 2^48 bits ({@link MAX_BITS}); above 2^32 bits (512 MiB) the bytes are split over pages of 2^32 bits. Index
 * arithmetic is exact: a page number is ⌊i / pageBits⌋ in doubles and the offset inside a page is below 2^32, so no
 * bit index is ever truncated to 32 bits.
 */
export class BitArray implements FilterStore<BitArray> {
  /** Number of bits. */
  readonly size: number;
  /** Number of bytes: ⌈size / 8⌉. */
  readonly byteLength: number;
  /** The storage, in order; every page but the last holds `pageBytes` bytes. Read-only by contract. */
  readonly pages: readonly Uint8Array[];
  private readonly first: Uint8Array;
  private readonly paged: boolean;
  private readonly pageBits: number;

  /**
   * A zeroed array of `size` bits, or (with `bytes`) one over existing bytes, which must be exactly ⌈size / 8⌉
   * long; `copy: false` uses them in place.
   */
  constructor(
    size: number,
    options: StorageOptions & { bytes?: Uint8Array | readonly Uint8Array[]; copy?: boolean } = {},
  ) {
    if (!Number.isInteger(size) || size < 1 || size > MAX_BITS) {
      throw new InvalidArgumentError(`BitArray: size must be an integer in [1, 2^48], got ${size}`);
    }
    const pageBytes = checkPageBytes('BitArray', options.pageBytes ?? DEFAULT_PAGE_BYTES);
    this.size = size;
    this.byteLength = Math.ceil(size / 8);
    const { bytes } = options;
    if (bytes !== undefined && lengthOf(bytes) !== this.byteLength) {
      throw new InvalidArgumentError(
        `BitArray: bytes must hold exactly ${this.byteLength} bytes for ${size} bits, got ${lengthOf(bytes)}`,
      );
    }
    this.pages =
      bytes === undefined
        ? allocatePages(this.byteLength, pageBytes)
        : pagesOf(bytes, pageBytes, options.copy ?? true);
    this.first = this.pages[0]!;
    this.paged = this.pages.length > 1;
    this.pageBits = pageBytes * 8;
  }

  /** The value of bit `i` (0 ≤ i < size; not range-checked on this hot path). */
  get(i: number): boolean {
    if (!this.paged) return (this.first[i >>> 3]! & (1 << (i & 7))) !== 0;
    const p = Math.floor(i / this.pageBits);
    const off = i - p * this.pageBits;
    return (this.pages[p]![off >>> 3]! & (1 << (off & 7))) !== 0;
  }

  /**
   * Sets bit `i`; returns a non-zero number when it was 0 before and 0 when it was already set. A number rather
   * than a boolean so a caller can OR the results of k positions without a data-dependent branch per position (a
   * half-full filter would mispredict half of them).
   */
  mark(i: number): number {
    if (!this.paged) {
      const bytes = this.first;
      const at = i >>> 3;
      const mask = 1 << (i & 7);
      const old = bytes[at]!;
      bytes[at] = old | mask;
      return ~old & mask;
    }
    let bytes = this.first;
    let off = i;
    if (this.paged) {
      const p = Math.floor(i / this.pageBits);
      bytes = this.pages[p]!;
      off = i - p * this.pageBits;
    }
    const at = off >>> 3;
    const mask = 1 << (off & 7);
    const old = bytes[at]!;
    bytes[at] = old | mask;
    return ~old & mask;
  }

  /** The bytes of a one-page array (see FilterStore.bitBytes); undefined when paged. */
  get bitBytes(): Uint8Array | undefined {
    return this.paged ? undefined : this.first;
  }
  /** Bits are never read as counters: undefined (see FilterStore.nibbleBytes). */
  get nibbleBytes(): undefined {
    return undefined;
  }

  /** Bits per slot: 1 (the counter width a serialized bit filter records is 0). */
  get counterBits(): number {
    return 0;
  }

  /** Number of bits set (the fill of the filter). */
  setCount(): number {
    return this.popcount();
  }

  /** Number of bits set. */
  popcount(): number {
    let total = 0;
    for (const page of this.pages) {
      const words = wordView(page);
      let i = 0;
      if (words !== undefined) {
        for (; i < words.length; i++) total += popcount32(words[i]!);
        i *= 4;
      }
      for (; i < page.length; i++) total += popcount32(page[i]!);
    }
    return total;
  }

  /** Sets every bit to 0. */
  clear(): void {
    for (const page of this.pages) page.fill(0);
  }

  /** This |= other (same size); used on a fresh copy to build a union. */
  unionWith(other: BitArray): void {
    this.combine(other, false);
  }

  /** This &= other (same size); used on a fresh copy to build an intersection. */
  intersectWith(other: BitArray): void {
    this.combine(other, true);
  }

  private combine(other: BitArray, and: boolean): void {
    if (other.size !== this.size) {
      throw new InvalidArgumentError(`BitArray: sizes differ (${this.size} and ${other.size} bits)`);
    }
    if (other.pageBits === this.pageBits) {
      // Same pages: page against page, a word at a time where both are 4-byte aligned.
      for (const [p, page] of this.pages.entries()) combinePage(page, other.pages[p]!, and);
      return;
    }
    let base = 0;
    for (const page of this.pages) {
      for (let i = 0; i < page.length; i++) {
        const b = other.byteAt(base + i);
        page[i] = and ? page[i]! & b : page[i]! | b;
      }
      base += page.length;
    }
  }

  /** True when both hold the same bits (whatever their page sizes). */
  equals(other: BitArray): boolean {
    if (other.size !== this.size) return false;
    if (other.pageBits === this.pageBits) return pagesEqual(this.pages, other.pages);
    for (let i = 0; i < this.byteLength; i++) if (this.byteAt(i) !== other.byteAt(i)) return false;
    return true;
  }

  /** Byte `index` of the payload, whichever page holds it. */
  private byteAt(index: number): number {
    const pageBytes = this.pageBits / 8;
    const p = Math.floor(index / pageBytes);
    return this.pages[p]![index - p * pageBytes]!;
  }

  /** An independent copy with the same page size. */
  clone(): BitArray {
    // Page by page: one array of the whole would fail past one typed array's limit (4 GiB on Node 20).
    const pages = this.pages.map((page) => page.slice());
    return new BitArray(this.size, { bytes: pages, copy: false, pageBytes: this.pageBits / 8 });
  }

  /** Copies the bytes (the serialized payload) into `target` from `offset`. */
  copyTo(target: Uint8Array, offset: number): void {
    copyPagesTo(this.pages, target, offset);
  }

  /** True when a bit at or past `size` in the last byte is set (impossible for a valid payload). */
  hasPaddingBits(): boolean {
    const spare = this.byteLength * 8 - this.size;
    if (spare === 0) return false;
    const last = this.pages[this.pages.length - 1]!;
    return last[last.length - 1]! >>> (8 - spare) !== 0;
  }
}

/** Bitwise population count of a 32-bit word (Hacker's Delight, §5-1). */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** target &= source or target |= source, for two pages of the same length. */
function combinePage(target: Uint8Array, source: Uint8Array, and: boolean): void {
  const t = wordView(target);
  const s = wordView(source);
  let i = 0;
  if (t !== undefined && s !== undefined) {
    if (and) for (let w = 0; w < t.length; w++) t[w] = t[w]! & s[w]!;
    else for (let w = 0; w < t.length; w++) t[w] = t[w]! | s[w]!;
    i = t.length * 4;
  }
  for (; i < target.length; i++) target[i] = and ? target[i]! & source[i]! : target[i]! | source[i]!;
}
