import type { Key } from '@bloomkit/core';
import { hashInto } from '@bloomkit/core/kit';

/**
 * The exception keys of an ExceptionFilter, exact: a set of keys compared as the filter hashes them, by their UTF-8
 * bytes (`"é"` and `new Uint8Array([0xc3, 0xa9])` are one key; a lone surrogate is U+FFFD, as `TextEncoder` writes
 * it). Each key is held as one canonical string, so a lookup is one hash-table probe:
 * - a key whose bytes are UTF-8 is held as the text they decode to (for a well-formed string key, the key itself);
 * - a key of bytes that are not UTF-8 is held as U+DC00 followed by one character per byte (U+0000–U+00FF). A lone
 *   surrogate never occurs in the first form, so the two forms never meet.
 *
 * Memory: a JavaScript string per key in a `Set` (measured on Node 20: about 110 bytes per 40-character URL with
 * its set entry), and 2 to 4 bytes of marks; in a file, 4 + the key's byte length (docs/FORMAT.md §3.5).
 */

const BYTES_MARK = '\uDC00';
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** The canonical string of a key (see above). */
export function canonicalKey(key: Key): string {
  if (typeof key === 'string') return wellFormed(key);
  try {
    return decoder.decode(key);
  } catch {
    return BYTES_MARK + latin1(key);
  }
}

/** The key with each lone surrogate replaced by U+FFFD, as the hash's UTF-8 encoding reads it. */
function wellFormed(text: string): string {
  return SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}

/** One character per byte. */
function latin1(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x2000) {
    out += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  }
  return out;
}

/** The key's bytes, as hashed and as written in a file. */
export function bytesOfCanonical(canonical: string): Uint8Array {
  if (!canonical.startsWith(BYTES_MARK)) return encoder.encode(canonical);
  const out = new Uint8Array(canonical.length - 1);
  for (let i = 1; i < canonical.length; i++) out[i - 1] = canonical.charCodeAt(i);
  return out;
}

/** The key a canonical string stands for: the text, or the bytes of a key that is not UTF-8. */
export function keyOfCanonical(canonical: string): Key {
  return canonical.startsWith(BYTES_MARK) ? bytesOfCanonical(canonical) : canonical;
}

/** Bytes of the UTF-8 encoding of a canonical string (without encoding it). */
export function byteLengthOfCanonical(canonical: string): number {
  if (canonical.startsWith(BYTES_MARK)) return canonical.length - 1;
  let n = 0;
  for (let i = 0; i < canonical.length; i++) {
    const c = canonical.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The seed of the marks' hash (any constant: the marks only decide whether the set is probed). */
const MARK_SEED = 0x5bd1e995;
/** The fewest mark bits, and marks per exception: a key that is no exception probes the set 1 time in 16. */
const MIN_MARK_BITS = 1 << 13;
const MARKS_PER_KEY = 16;

/**
 * A set of exception keys (see the module comment), with the bytes its entries take in a file.
 *
 * Lookups first read one bit of a bitmap of marks, indexed by a MurmurHash3 of the key's bytes (so a key's text
 * and bytes forms, and a lone surrogate and U+FFFD, share their mark), with 16 bits per exception: a key that is
 * no exception reads one bit and stops there 15 times in 16, so a large set's cache misses are paid only by the
 * exceptions themselves and 1/16 of the other keys the filter answers present. A removed exception leaves its
 * bit set (a stale mark costs a probe, never an answer); the marks are rebuilt when they double or go stale.
 */
export class ExceptionKeys {
  private readonly set: Set<string>;
  private bytes: number;
  private marks: Uint8Array = new Uint8Array(MIN_MARK_BITS / 8);
  private mask = MIN_MARK_BITS - 1;
  /** Exceptions removed since the marks were built. */
  private stale = 0;
  private readonly hash = new Int32Array(4);

  constructor(set: Set<string> = new Set(), bytes?: number) {
    this.set = set;
    this.bytes = bytes ?? [...set].reduce((sum, key) => sum + ENTRY_OVERHEAD + byteLengthOfCanonical(key), 0);
    this.rebuildMarks();
  }

  get size(): number {
    return this.set.size;
  }

  /** Bytes the entries take in a file: 4 + the key's bytes each. */
  get encodedBytes(): number {
    return this.bytes;
  }

  /** True when `key` is an exception: one bit read for most keys that are not. */
  has(key: Key): boolean {
    return this.marked(key) && this.set.has(canonicalKey(key));
  }

  hasCanonical(canonical: string): boolean {
    return this.set.has(canonical);
  }

  /** Adds `key`; true when it was not an exception. */
  add(key: Key): boolean {
    return this.addCanonical(canonicalKey(key));
  }

  addCanonical(canonical: string): boolean {
    if (this.set.has(canonical)) return false;
    this.set.add(canonical);
    this.bytes += ENTRY_OVERHEAD + byteLengthOfCanonical(canonical);
    if (this.set.size * MARKS_PER_KEY > this.mask + 1) this.rebuildMarks();
    else this.mark(canonical);
    return true;
  }

  /** Removes `key`; true when it was an exception. */
  delete(key: Key): boolean {
    return this.marked(key) && this.deleteCanonical(canonicalKey(key));
  }

  deleteCanonical(canonical: string): boolean {
    if (!this.set.delete(canonical)) return false;
    this.bytes -= ENTRY_OVERHEAD + byteLengthOfCanonical(canonical);
    if (++this.stale > this.set.size + MIN_MARK_BITS / MARKS_PER_KEY) this.rebuildMarks();
    return true;
  }

  clear(): void {
    this.set.clear();
    this.bytes = 0;
    this.rebuildMarks();
  }

  clone(): ExceptionKeys {
    return new ExceptionKeys(new Set(this.set), this.bytes);
  }

  /** The canonical strings, in insertion order. */
  canonical(): IterableIterator<string> {
    return this.set.values();
  }

  equals(other: ExceptionKeys): boolean {
    if (other.size !== this.size) return false;
    for (const key of this.set) if (!other.set.has(key)) return false;
    return true;
  }

  /** False when `key` is certainly no exception (an empty set, or its mark bit clear): most keys stop here. */
  private marked(key: Key): boolean {
    if (this.set.size === 0) return false;
    const at = this.markOf(key);
    return (this.marks[at >>> 3]! & (1 << (at & 7))) !== 0;
  }

  /** The mark bit of a key. */
  private markOf(key: Key): number {
    hashInto(key, MARK_SEED, this.hash, 'ExceptionFilter');
    return this.hash[0]! & this.mask;
  }

  private mark(canonical: string): void {
    const at = this.markOf(keyOfCanonical(canonical));
    this.marks[at >>> 3] = this.marks[at >>> 3]! | (1 << (at & 7));
  }

  /** Marks sized for the set (16 bits per exception, a power of two), every exception marked. */
  private rebuildMarks(): void {
    let bits = MIN_MARK_BITS;
    while (bits < this.set.size * MARKS_PER_KEY * 2 && bits < 2 ** 31) bits *= 2;
    this.marks = new Uint8Array(bits / 8);
    this.mask = bits - 1;
    this.stale = 0;
    for (const canonical of this.set) this.mark(canonical);
  }
}

/** The u32 length before each key in a file. */
export const ENTRY_OVERHEAD = 4;
