import {
  type BloomFilter,
  type ByteSource,
  type FilterHeader,
  FormatError,
  InvalidArgumentError,
  readHeader,
} from '@bloomkit/core';
import type { FilterClass, ReadOptions } from './filter-class.js';
import { type AnyFilter, describeKinds, kindById, kindByName } from './kinds.js';

/** A filter read from bytes of any kind, with what its header said and its kind's class. */
export interface AnyDecoded {
  /** The file's header, as `readHeader` gives it. */
  readonly header: FilterHeader;
  /** The class of the kind the header names, from the table. */
  readonly Class: FilterClass;
  /**
   * The filter the file holds, read by that class: one of the built-in kinds ({@link AnyFilter}: narrow it with
   * `instanceof`, e.g. `filter instanceof ScalableBloomFilter`), or the filter of a kind added with `registerKind`
   * (the exceptions kind, a private kind), which is a {@link BloomFilter}.
   */
  readonly filter: AnyFilter | BloomFilter;
}

/** The class of the kind a file's header names; a kind the table does not hold is a FormatError listing the known. */
export function kindOfHeader(header: FilterHeader): FilterClass {
  const Class = kindById(header.kind);
  if (Class === undefined) {
    throw new FormatError(`deserializeAny: unknown filter kind ${header.kind} (known: ${describeKinds()})`);
  }
  return Class;
}

/** The kind of a file's bytes (one array or parts): its header is read without the checksum (O(1)). */
export function kindOfBytes(bytes: ByteSource): { header: FilterHeader; Class: FilterClass } {
  const header = readHeader(bytes, { verifyChecksum: false });
  return { header, Class: kindOfHeader(header) };
}

/**
 * Reads a filter of any kind from the bytes `serialize` (or `serializeParts`) wrote: the header says which kind,
 * and that kind's `deserialize` reads the rest with `options` (`copy`, `verifyChecksum`, and `maxBytes` for kinds
 * that grow). Errors are the kind's own: FormatError for bytes that are not a valid file, UnsupportedVersionError
 * for a newer format, InvalidArgumentError for bad options.
 */
export function deserializeAny(bytes: ByteSource, options?: ReadOptions): AnyDecoded {
  const { header, Class } = kindOfBytes(bytes);
  const filter = Class.deserialize(bytes, options);
  return { header: { ...header, checksumVerified: options?.verifyChecksum !== false }, Class, filter };
}

/** Reads the JSON form of any kind (`toJSON()`'s object or its text): its `kind` names the class that reads it. */
export function fromJSONAny(json: unknown, options?: ReadOptions): AnyFilter | BloomFilter {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new FormatError('fromJSONAny: the text is not JSON');
    }
  }
  const name = (value as { kind?: unknown } | null)?.kind;
  const Class = typeof name === 'string' ? kindByName(name) : undefined;
  if (Class === undefined) {
    throw new FormatError(
      `fromJSONAny: the JSON's kind must be one of ${describeKinds()}, got ${JSON.stringify(name) ?? 'nothing'}`,
    );
  }
  return Class.fromJSON(value, options);
}

/** The class of kind `name`, or an InvalidArgumentError naming `parameter` and the known kinds. */
export function requireKind(where: string, parameter: string, name: unknown): FilterClass {
  const Class = typeof name === 'string' ? kindByName(name) : undefined;
  if (Class === undefined) {
    throw new InvalidArgumentError(
      `${where}: ${parameter} must be one of ${describeKinds()}, got ${JSON.stringify(name) ?? String(name)}`,
    );
  }
  return Class;
}
