import { checkBase64Characters, decodeBase64, encodeBase64 } from './base64.js';
import { BloomError, FormatError, InvalidArgumentError, UnsupportedVersionError } from './errors.js';
import { FORMAT_VERSION } from './format.js';
import { describe } from './key.js';

/**
 * The JSON form of a filter: `{ "format": "bloomkit", "version": 1, "kind": "standard", "base64": "…" }`, the
 * filter's file (docs/FORMAT.md) in base64 (RFC 4648, with padding). Compact (4/3 of the bytes) and versioned, so
 * `JSON.stringify(filter)` can be stored in a JSON document and read back with the class's `fromJSON`.
 */
export interface FilterJson {
  /** Always `'bloomkit'`: what tells this JSON from any other. */
  readonly format: 'bloomkit';
  /** The file's format version. */
  readonly version: number;
  /** The kind's name, as `readHeader` gives it. */
  readonly kind: string;
  /** The file's bytes (docs/FORMAT.md) in base64, RFC 4648 with padding. */
  readonly base64: string;
}

/** The longest file a JSON form holds: its base64 must fit one JavaScript string (V8: 2^29 − 24 characters). */
export const MAX_JSON_FILE_BYTES: number = Math.floor((2 ** 29 - 24) / 4) * 3;

/** The JSON form of a file of `kind` at format `version`. */
export function toFilterJson(where: string, kind: string, version: number, file: Uint8Array): FilterJson {
  if (file.length > MAX_JSON_FILE_BYTES) {
    throw new InvalidArgumentError(
      `${where}: the file is ${file.length} bytes; its base64 would not fit one string (at most ${MAX_JSON_FILE_BYTES} bytes); use serialize()`,
    );
  }
  return { format: 'bloomkit', version, kind, base64: encodeBase64(file) };
}

/** The file inside a JSON form (an object or its JSON text), after checking the fields and the base64. */
export function fromFilterJson(where: string, json: unknown, expectedKind: string): Uint8Array {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new FormatError(`${where}: not JSON`);
    }
  }
  const o = readJsonFields(where, value);
  if (o.kind !== expectedKind) {
    throw new FormatError(`${where}: the JSON holds a ${String(o.kind)} filter, expected ${expectedKind}`);
  }
  if (typeof o.version !== 'number' || !Number.isInteger(o.version) || o.version < 1) {
    throw new FormatError(
      `${where}: the JSON's version must be a format version (an integer from 1), got ${describe(o.version)}`,
    );
  }
  if (o.version > FORMAT_VERSION) {
    throw new UnsupportedVersionError(
      `${where}: the JSON is of format version ${o.version}, newer than this reader (${FORMAT_VERSION}); upgrade bloomkit`,
      o.version,
    );
  }
  // Every character checked before anything is allocated for the bytes (the text is the input's real size).
  checkBase64Characters(where, o.base64);
  const bytes = decodeBase64(where, o.base64);
  if (bytes.length >= 5 && bytes[4] !== o.version) {
    throw new FormatError(`${where}: the JSON says format version ${o.version}, its bytes say ${bytes[4]}`);
  }
  return bytes;
}

/** The JSON form's fields, read once; a value of another shape, or one whose reads throw, is a FormatError. */
function readJsonFields(where: string, value: unknown): FilterJson {
  const shape = `expected { format: 'bloomkit', version, kind, base64 }, got ${describe(value)}`;
  if (typeof value !== 'object' || value === null) throw new FormatError(`${where}: ${shape}`);
  let fields: { format: unknown; version: unknown; kind: unknown; base64: unknown };
  try {
    const o = value as Record<string, unknown>;
    fields = { format: o.format, version: o.version, kind: o.kind, base64: o.base64 };
  } catch (error) {
    if (error instanceof BloomError) throw error;
    throw new FormatError(`${where}: reading the JSON's fields threw: ${String(error)}`);
  }
  if (fields.format !== 'bloomkit' || typeof fields.base64 !== 'string')
    throw new FormatError(`${where}: ${shape}`);
  return fields as FilterJson;
}
