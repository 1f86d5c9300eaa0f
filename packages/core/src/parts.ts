import { crc32c } from './checksum.js';
import { BloomError, FormatError } from './errors.js';
import { describe } from './key.js';

/**
 * Serialized bytes as a reader receives them: one `Uint8Array`, an `ArrayBuffer` (what `fetch` and `FileReader`
 * give), or a list of parts whose concatenation is the file. The list is how a file larger than one typed array
 * (4 GiB on Node 20) is read: the CLI reads big files in page-sized chunks and passes the chunks.
 */
export type ByteSource = Uint8Array | ArrayBuffer | readonly Uint8Array[];

/**
 * The source as a list of parts (views of the bytes, nothing copied; the list itself is copied, so a list changed
 * later, or one whose reads throw, cannot change what is decoded); anything else, a sparse list among them, is
 * refused with a FormatError.
 */
export function toParts(input: unknown, where: string): readonly Uint8Array[] {
  if (input instanceof Uint8Array) return [input];
  if (input instanceof ArrayBuffer) return [new Uint8Array(input)];
  if (Array.isArray(input)) {
    const parts: Uint8Array[] = [];
    try {
      for (let i = 0; i < input.length; i++) {
        const part: unknown = input[i];
        if (!(part instanceof Uint8Array)) {
          throw new FormatError(
            `${where}: part ${i} of the input must be a Uint8Array, got ${describe(part)}`,
          );
        }
        parts.push(part);
      }
    } catch (error) {
      if (error instanceof BloomError) throw error;
      throw new FormatError(`${where}: reading the input's parts threw: ${String(error)}`);
    }
    return parts;
  }
  throw new FormatError(
    `${where}: input must be a Uint8Array, an ArrayBuffer or an array of Uint8Array parts, got ${describe(input)}`,
  );
}

/** Bytes in one array or in a list of parts. */
export function lengthOf(bytes: Uint8Array | readonly Uint8Array[]): number {
  if (bytes instanceof Uint8Array) return bytes.length;
  let total = 0;
  for (const part of bytes) total += part.length;
  return total;
}

/**
 * Views of bytes [offset, offset + length) of the concatenated parts, in order; no copy. The caller has checked
 * that the range lies inside the parts.
 */
export function sliceParts(parts: readonly Uint8Array[], offset: number, length: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let skip = offset;
  let left = length;
  for (const part of parts) {
    if (left === 0) break;
    if (skip >= part.length) {
      skip -= part.length;
      continue;
    }
    const take = Math.min(part.length - skip, left);
    out.push(part.subarray(skip, skip + take));
    left -= take;
    skip = 0;
  }
  if (out.length === 0) out.push((parts[0] ?? new Uint8Array(0)).subarray(0, 0));
  return out;
}

/**
 * Bytes [offset, offset + length) as one contiguous array: a view when they lie in one part, else a copy (used
 * for headers and params, which are small; never for payloads).
 */
export function gatherBytes(parts: readonly Uint8Array[], offset: number, length: number): Uint8Array {
  const slices = sliceParts(parts, offset, length);
  if (slices.length === 1) return slices[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const slice of slices) {
    out.set(slice, at);
    at += slice.length;
  }
  return out;
}

/** CRC-32C of the parts in order, as if concatenated; `previous` continues a CRC of the bytes before them. */
export function crc32cOfParts(parts: readonly Uint8Array[], previous = 0): number {
  let crc = previous;
  for (const part of parts) crc = crc32c(part, crc);
  return crc;
}
