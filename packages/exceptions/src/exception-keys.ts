import type { Key } from '@bloomkit/core';

/**
 * The exception keys of an ExceptionFilter, exact: a set of keys compared as the filter hashes them, by their UTF-8
 * bytes (`"é"` and `new Uint8Array([0xc3, 0xa9])` are one key; a lone surrogate is U+FFFD, as `TextEncoder` writes
 * it). Each key is held as one canonical string, so a lookup is one hash-table probe:
 * - a key whose bytes are UTF-8 is held as the text they decode to (for a well-formed string key, the key itself);
 * - a key of bytes that are not UTF-8 is held as U+DC00 followed by one character per byte (U+0000–U+00FF). A lone
 *   surrogate never occurs in the first form, so the two forms never meet.
 *
 * Memory: a JavaScript string per key in a `Set` (measured on Node 20: about 110 bytes per 40-character URL with
 * its set entry); in a file, 4 + the key's byte length (docs/FORMAT.md §3.5).
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

/** A set of exception keys (see the module comment), with the bytes its entries take in a file. */
export class ExceptionKeys {
  private readonly set: Set<string>;
  private bytes: number;
  /**
   * Keys holding U+FFFD. A text key with a lone surrogate is looked up as its U+FFFD form; while no listed key
   * holds U+FFFD it cannot be listed, so a lookup that misses needs no scan for surrogates.
   */
  private replacements: number;

  constructor(set: Set<string> = new Set(), bytes?: number) {
    this.set = set;
    this.bytes = bytes ?? [...set].reduce((sum, key) => sum + ENTRY_OVERHEAD + byteLengthOfCanonical(key), 0);
    this.replacements = 0;
    for (const key of set) if (key.includes('\uFFFD')) this.replacements++;
  }

  get size(): number {
    return this.set.size;
  }

  /** Bytes the entries take in a file: 4 + the key's bytes each. */
  get encodedBytes(): number {
    return this.bytes;
  }

  /** True when `key` is an exception: a well-formed string key costs one probe. */
  has(key: Key): boolean {
    if (this.set.size === 0) return false;
    if (typeof key === 'string') {
      // A stored string is well-formed or starts with the bytes mark; a text key starting with U+DC00 is not
      // well-formed, so it is looked up as U+FFFD… and never meets a key of bytes.
      if (key.charCodeAt(0) === 0xdc00) return this.set.has(wellFormed(key));
      if (this.set.has(key)) return true;
      return this.replacements > 0 && SURROGATE.test(key) && this.set.has(wellFormed(key));
    }
    return this.set.has(canonicalKey(key));
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
    if (canonical.includes('\uFFFD')) this.replacements++;
    return true;
  }

  /** Removes `key`; true when it was an exception. */
  delete(key: Key): boolean {
    if (this.set.size === 0) return false;
    return this.deleteCanonical(canonicalKey(key));
  }

  deleteCanonical(canonical: string): boolean {
    if (!this.set.delete(canonical)) return false;
    this.bytes -= ENTRY_OVERHEAD + byteLengthOfCanonical(canonical);
    if (canonical.includes('\uFFFD')) this.replacements--;
    return true;
  }

  clear(): void {
    this.set.clear();
    this.bytes = 0;
    this.replacements = 0;
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
}

/** The u32 length before each key in a file. */
export const ENTRY_OVERHEAD = 4;
