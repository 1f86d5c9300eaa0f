import {
  type ByteSource,
  FormatError,
  type KindRecord,
  readHeader,
  UnsupportedVersionError,
} from '@bloomkit/core';
import { getUint64, setUint64 } from '@bloomkit/core/internal';
import {
  bytesOfCanonical,
  canonicalKey,
  ENTRY_OVERHEAD,
  type ExceptionKeys,
  ExceptionKeys as Keys,
} from './exception-keys.js';

/**
 * The params block and payload of kind 6 (docs/FORMAT.md §3.5). Params, 16 bytes: the exception count E (u64) and
 * the nested filter's length N (u64). Payload: the nested filter's complete envelope (N bytes, any kind but 6),
 * then E entries, each a u32 length n and n bytes of key, in strictly increasing order of their bytes (unsigned,
 * a prefix first), so a set of exceptions has exactly one encoding.
 */

export const PARAMS_BYTES = 16;

/** What the params block says. */
export interface ExceptionsParams {
  readonly exceptionCount: number;
  readonly filterBytes: number;
}

export function encodeExceptionsParams(params: ExceptionsParams): Uint8Array {
  const out = new Uint8Array(PARAMS_BYTES);
  const view = new DataView(out.buffer);
  setUint64(view, 0, params.exceptionCount);
  setUint64(view, 8, params.filterBytes);
  return out;
}

export function decodeExceptionsParams(
  view: DataView,
  payloadLength: number,
  where: string,
): ExceptionsParams {
  if (view.byteLength !== PARAMS_BYTES) {
    throw new FormatError(
      `${where}: the exceptions params block is ${PARAMS_BYTES} bytes, got ${view.byteLength}`,
    );
  }
  const exceptionCount = getUint64(view, 0, where, 'exception count');
  const filterBytes = getUint64(view, 8, where, 'filter length');
  if (filterBytes > payloadLength) {
    throw new FormatError(
      `${where}: the nested filter is said to take ${filterBytes} bytes of a ${payloadLength}-byte payload`,
    );
  }
  if (exceptionCount > (payloadLength - filterBytes) / ENTRY_OVERHEAD) {
    throw new FormatError(
      `${where}: ${exceptionCount} exceptions cannot fit in the ${payloadLength - filterBytes} bytes after the filter`,
    );
  }
  return { exceptionCount, filterBytes };
}

/** Unsigned lexicographic order of byte strings, a prefix first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** A character at which UTF-16 order may differ from UTF-8 byte order (a surrogate, or above them). */
const HIGH_UNIT = /[\uD800-\uFFFF]/;
const encoder = new TextEncoder();

/**
 * The entries of a set of exceptions, sorted, in one array. Below U+D800, UTF-16 order is UTF-8 byte order, so a
 * set of such keys (URLs, most text) sorts as strings, with no byte array per key; others sort by their bytes.
 */
export function encodeEntries(keys: ExceptionKeys): Uint8Array {
  const out = new Uint8Array(keys.encodedBytes);
  const view = new DataView(out.buffer);
  const list = Array.from(keys.canonical());
  let at = 0;
  if (!list.some((key) => HIGH_UNIT.test(key))) {
    list.sort();
    for (const key of list) {
      const { written } = encoder.encodeInto(key, out.subarray(at + ENTRY_OVERHEAD));
      view.setUint32(at, written, true);
      at += ENTRY_OVERHEAD + written;
    }
    return out;
  }
  for (const bytes of list.map(bytesOfCanonical).sort(compareBytes)) {
    view.setUint32(at, bytes.length, true);
    out.set(bytes, at + ENTRY_OVERHEAD);
    at += ENTRY_OVERHEAD + bytes.length;
  }
  return out;
}

/**
 * Reads `count` entries that fill `bytes` exactly, each after the one before in byte order; FormatError for a
 * length past the end, a repeat, an entry out of order, or bytes left over.
 */
export function decodeEntries(bytes: Uint8Array, count: number, where: string): ExceptionKeys {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const set = new Set<string>();
  let previous: Uint8Array | undefined;
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (bytes.length - at < ENTRY_OVERHEAD) {
      throw new FormatError(`${where}: exception ${i} is cut short (the payload ends inside its length)`);
    }
    const length = view.getUint32(at, true);
    if (length > bytes.length - at - ENTRY_OVERHEAD) {
      throw new FormatError(`${where}: exception ${i} is said to be ${length} bytes, past the payload's end`);
    }
    const key = bytes.subarray(at + ENTRY_OVERHEAD, at + ENTRY_OVERHEAD + length);
    if (previous !== undefined && compareBytes(previous, key) >= 0) {
      throw new FormatError(
        `${where}: exception ${i} is not after exception ${i - 1} in byte order (or repeats it)`,
      );
    }
    set.add(canonicalKey(key));
    previous = key;
    at += ENTRY_OVERHEAD + length;
  }
  if (at !== bytes.length) {
    throw new FormatError(`${where}: ${bytes.length - at} bytes after the last exception`);
  }
  return new Keys(set, at);
}

/** The nested filter's header, checked to be of another kind and of the outer file's version and seed. */
export function checkNested(
  kind: KindRecord,
  nested: ByteSource,
  outer: { readonly version: number; readonly seed: number },
  where: string,
): void {
  let header: ReturnType<typeof readHeader>;
  try {
    header = readHeader(nested, { verifyChecksum: false });
  } catch (error) {
    // A newer nested version inside a readable file is an inconsistent file, not a newer one (FORMAT §3).
    if (!(error instanceof UnsupportedVersionError)) throw error;
    throw new FormatError(
      `${where}: the nested filter has format version ${error.version}, the file ${outer.version}`,
    );
  }
  if (header.kind === kind.id) {
    throw new FormatError(`${where}: the nested filter is itself an exceptions filter (kind ${kind.id})`);
  }
  if (header.version !== outer.version) {
    throw new FormatError(
      `${where}: the nested filter has format version ${header.version}, the file ${outer.version}`,
    );
  }
  if (header.seed !== outer.seed) {
    throw new FormatError(`${where}: the nested filter has seed ${header.seed}, the file ${outer.seed}`);
  }
}
