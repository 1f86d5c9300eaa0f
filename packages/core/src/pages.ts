import { InvalidArgumentError } from './errors.js';
import { lengthOf } from './parts.js';

/**
 * Byte storage split into pages, so a structure can be larger than one typed array allows (4 GiB on Node 20).
 * Every page but the last holds exactly `pageBytes` bytes. A structure of at most `pageBytes` bytes has one page,
 * and its hot path is a plain typed-array access.
 */

/** Default page size: 2^29 bytes (512 MiB, 2^32 bits), so an offset inside a page always fits in 32 bits. */
export const DEFAULT_PAGE_BYTES: number = 2 ** 29;

/** Checks a page size: a power of two in [8, 2^29]. */
export function checkPageBytes(where: string, pageBytes: number): number {
  if (
    !Number.isInteger(pageBytes) ||
    pageBytes < 8 ||
    pageBytes > DEFAULT_PAGE_BYTES ||
    !isPowerOfTwo(pageBytes)
  ) {
    throw new InvalidArgumentError(
      `${where}: pageBytes must be a power of two in [8, 2^29], got ${pageBytes}`,
    );
  }
  return pageBytes;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

/** Zeroed pages holding `byteLength` bytes in all. */
export function allocatePages(byteLength: number, pageBytes: number): Uint8Array[] {
  const pages: Uint8Array[] = [];
  for (let start = 0; start < byteLength || pages.length === 0; start += pageBytes) {
    pages.push(new Uint8Array(Math.min(pageBytes, byteLength - start)));
  }
  return pages;
}

/**
 * Pages over `bytes`, given as one array or as parts whose concatenation is the bytes. With `copy` false they are
 * views when the layout allows (one array; or parts that are already page-sized, every one but the last exactly
 * `pageBytes`), else fresh copies; an array of at most one page is its own page, the same object (kernel memory
 * (wasm/kernel-arena.ts) keeps a filter's place while that object lives).
 */
export function pagesOf(
  bytes: Uint8Array | readonly Uint8Array[],
  pageBytes: number,
  copy: boolean,
): Uint8Array[] {
  if (!(bytes instanceof Uint8Array)) {
    if (bytes.length === 1) return pagesOf(bytes[0]!, pageBytes, copy);
    const aligned = bytes.every((part, i) =>
      i < bytes.length - 1 ? part.length === pageBytes : part.length > 0 && part.length <= pageBytes,
    );
    if (!copy && aligned) return [...bytes];
    const pages = allocatePages(lengthOf(bytes), pageBytes);
    let at = 0;
    for (const part of bytes) {
      writeAt(pages, pageBytes, at, part);
      at += part.length;
    }
    return pages;
  }
  if (!copy && bytes.length > 0 && bytes.length <= pageBytes) return [bytes];
  const pages: Uint8Array[] = [];
  for (let start = 0; start < bytes.length || pages.length === 0; start += pageBytes) {
    const view = bytes.subarray(start, Math.min(start + pageBytes, bytes.length));
    pages.push(copy ? view.slice() : view);
  }
  return pages;
}

/** Copies `source` into the pages from byte `offset` of the whole. */
function writeAt(pages: Uint8Array[], pageBytes: number, offset: number, source: Uint8Array): void {
  let done = 0;
  while (done < source.length) {
    const at = offset + done;
    const page = Math.floor(at / pageBytes);
    const inPage = at - page * pageBytes;
    const take = Math.min(pageBytes - inPage, source.length - done);
    pages[page]!.set(source.subarray(done, done + take), inPage);
    done += take;
  }
}

/** Copies the pages, in order, into `target` from `offset`. */
export function copyPagesTo(pages: readonly Uint8Array[], target: Uint8Array, offset: number): void {
  let at = offset;
  for (const page of pages) {
    target.set(page, at);
    at += page.length;
  }
}

/** True when both page lists hold the same bytes (same page sizes assumed). */
export function pagesEqual(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let p = 0; p < a.length; p++) if (!bytesEqual(a[p]!, b[p]!)) return false;
  return true;
}

/**
 * True when `x` and `y` hold the same bytes: a 32-bit word at a time where both are 4-byte aligned (4.8 s to 1.1 s
 * for 4 GiB against a byte at a time), then the bytes past the last word.
 */
export function bytesEqual(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  const xw = wordView(x);
  const yw = wordView(y);
  let i = 0;
  if (xw !== undefined && yw !== undefined) {
    const words = xw.length;
    for (let w = 0; w < words; w++) if (xw[w] !== yw[w]) return false;
    i = words * 4;
  }
  for (; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** A 32-bit word view of `page` when it is 4-byte aligned, for word-at-a-time loops; else undefined. */
export function wordView(page: Uint8Array): Int32Array | undefined {
  return page.byteOffset % 4 === 0
    ? new Int32Array(page.buffer, page.byteOffset, page.length >>> 2)
    : undefined;
}
