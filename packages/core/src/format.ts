import { crc32c } from './checksum.js';
import {
  ChecksumMismatchError,
  FormatError,
  InvalidArgumentError,
  UnsupportedVersionError,
} from './errors.js';
import type { KindRecord } from './kinds.js';
import { type ByteSource, crc32cOfParts, gatherBytes, lengthOf, sliceParts, toParts } from './parts.js';
import { handOut } from './wasm/kernel-arena.js';

/**
 * The envelope shared by every bloomkit filter file (docs/FORMAT.md is the normative description):
 *
 *     offset  size  field
 *     0       4     magic "BLMK" (42 4C 4D 4B)
 *     4       1     format version (1)
 *     5       1     filter kind (a {@link KindRecord} id, 1–255)
 *     6       1     hash algorithm ({@link HashAlgorithm})
 *     7       1     flags, 0 (reserved)
 *     8       4     seed, u32 little-endian
 *     12      2     params length P, u16 little-endian, a multiple of 8
 *     14      2     reserved, 0
 *     16      8     payload length L, u64 little-endian (< 2^53)
 *     24      P     params (kind-specific)
 *     24+P    L     payload (kind-specific)
 *     24+P+L  4     CRC-32C of bytes [0, 24+P+L), u32 little-endian
 *
 * All multi-byte integers are little-endian. A reader checks every length against the bytes it was given before
 * it allocates anything, and rejects anything it does not understand with a {@link FormatError}.
 */

/** "BLMK". */
export const MAGIC: readonly number[] = [0x42, 0x4c, 0x4d, 0x4b];
/** The format version this code writes, and the newest it reads. */
export const FORMAT_VERSION = 1;
/** Bytes before the params. */
export const HEADER_BYTES = 24;
/** Bytes of the trailing checksum. */
export const CHECKSUM_BYTES = 4;
/** The smallest possible envelope: header, no params, no payload, checksum. */
export const MIN_ENVELOPE_BYTES: number = HEADER_BYTES + CHECKSUM_BYTES;

/**
 * Hash algorithms (byte 6): 1 = MurmurHash3 x86_128 of the key's UTF-8 bytes with the header's seed, positions by
 * a cubic in i with four pseudo-random 64-bit coefficients (docs/FORMAT.md §4, §5); 2 = XXH64 with seed 0 of a
 * value's Parquet plain bytes, positions by the split-block rule (§3.7, kind 8 only). 0 invalid; others reserved.
 * Each kind has one algorithm ({@link KindRecord.hashAlgorithm}); a file whose byte 6 is not its kind's is refused.
 */
export const HashAlgorithm = { Murmur3x86_128: 1, Xxh64: 2 } as const;
export type HashAlgorithm = (typeof HashAlgorithm)[keyof typeof HashAlgorithm];

/** What {@link encodeEnvelope} writes. */
export interface EnvelopeSpec {
  readonly kind: number;
  /** Byte 6; default 1 (MurmurHash3 x86_128). */
  readonly hashAlgorithm?: HashAlgorithm;
  readonly seed: number;
  /** Kind-specific params; length a multiple of 8, at most 65528. */
  readonly params: Uint8Array;
  readonly payloadLength: number;
  /** Writes exactly `payloadLength` bytes into `target` at `offset`. */
  readonly writePayload: (target: Uint8Array, offset: number) => void;
}

/** A decoded envelope; `params` and the payload parts are views into the input (nothing is copied). */
export interface Envelope {
  readonly version: number;
  readonly kind: number;
  readonly hashAlgorithm: HashAlgorithm;
  readonly seed: number;
  readonly params: DataView;
  /**
   * The payload as views of the input's parts, in order: one view when the input is one array (or the payload
   * lies within one part).
   */
  readonly payload: readonly Uint8Array[];
  readonly payloadLength: number;
  /** Bytes the envelope occupies, checksum included. */
  readonly byteLength: number;
}

/** Options for {@link decodeEnvelope}. */
export interface DecodeOptions {
  /** Reject any other kind. */
  readonly expectedKind?: KindRecord;
  /** Verify the CRC-32C (default true). Off, decoding is O(1) in the payload size. */
  readonly verifyChecksum?: boolean;
  /** Allow bytes after the envelope (for nested envelopes); default false. */
  readonly allowTrailing?: boolean;
  /** Prefix for error messages, e.g. `StandardBloomFilter.deserialize`. */
  readonly where?: string;
}

/** Total size of an envelope with these params and payload lengths. */
export function envelopeLength(paramsLength: number, payloadLength: number): number {
  return HEADER_BYTES + paramsLength + payloadLength + CHECKSUM_BYTES;
}

/** Writes a complete envelope into a new Uint8Array. */
export function encodeEnvelope(spec: EnvelopeSpec): Uint8Array {
  const out = new Uint8Array(envelopeLength(spec.params.length, spec.payloadLength));
  writeEnvelope(spec, out, 0);
  return out;
}

/** Writes a complete envelope into `target` at `offset`; returns the bytes written. */
export function writeEnvelope(spec: EnvelopeSpec, target: Uint8Array, offset: number): number {
  const head = encodeHead(spec, spec.payloadLength);
  const length = envelopeLength(spec.params.length, spec.payloadLength);
  target.set(head, offset);
  spec.writePayload(target, offset + head.length);
  const end = offset + length - CHECKSUM_BYTES;
  new DataView(target.buffer, target.byteOffset + end, CHECKSUM_BYTES).setUint32(
    0,
    crc32c(target.subarray(offset, end)),
    true,
  );
  return length;
}

/**
 * An envelope as a list of parts whose concatenation is the file: the header with the params, the payload parts
 * as given (not copied), and the checksum. What a writer of files past one typed array's 4 GiB streams out.
 */
export function encodeEnvelopeParts(
  spec: Omit<EnvelopeSpec, 'payloadLength' | 'writePayload'> & { readonly payload: readonly Uint8Array[] },
): Uint8Array[] {
  // Parts in a shared kernel arena are copied (kernel-arena.ts, handOut): a caller's views of them would outlive
  // the place once the filter is gone. Others are the filter's own bytes.
  const payload = spec.payload.map(handOut);
  const head = encodeHead(spec, lengthOf(payload));
  const crc = crc32cOfParts(payload, crc32c(head));
  const tail = new Uint8Array(CHECKSUM_BYTES);
  new DataView(tail.buffer).setUint32(0, crc, true);
  return [head, ...payload, tail];
}

/** The header (§1) followed by the params. */
function encodeHead(
  spec: Pick<EnvelopeSpec, 'kind' | 'seed' | 'params' | 'hashAlgorithm'>,
  payloadLength: number,
): Uint8Array {
  const { kind, seed, params } = spec;
  if (params.length % 8 !== 0 || params.length > 0xfff8) {
    throw new InvalidArgumentError(
      `encodeEnvelope: params length must be a multiple of 8 up to 65528, got ${params.length}`,
    );
  }
  const head = new Uint8Array(HEADER_BYTES + params.length);
  const view = new DataView(head.buffer);
  head.set(MAGIC, 0);
  view.setUint8(4, FORMAT_VERSION);
  view.setUint8(5, kind);
  view.setUint8(6, spec.hashAlgorithm ?? HashAlgorithm.Murmur3x86_128);
  view.setUint8(7, 0);
  view.setUint32(8, seed, true);
  view.setUint16(12, params.length, true);
  view.setUint16(14, 0, true);
  setUint64(view, 16, payloadLength);
  head.set(params, HEADER_BYTES);
  return head;
}

/**
 * Reads and checks an envelope at the start of `input` (one array, an ArrayBuffer, or a list of parts): magic,
 * version, kind, hash algorithm, flags, every length against the input's length, and (unless disabled) the
 * checksum. Throws {@link UnsupportedVersionError} for a newer version and {@link FormatError} for anything else
 * wrong. Nothing is allocated in proportion to what the header announces.
 */
export function decodeEnvelope(input: ByteSource, options: DecodeOptions = {}): Envelope {
  const where = options.where ?? 'decodeEnvelope';
  const parts = toParts(input, where);
  const total = lengthOf(parts);
  const head = checkEnvelopeHeader(gatherBytes(parts, 0, Math.min(total, HEADER_BYTES)), total, {
    ...options,
    where,
  });
  const { paramsLength, payloadLength, byteLength } = head;
  if (options.verifyChecksum ?? true) {
    const trailer = gatherBytes(parts, byteLength - CHECKSUM_BYTES, CHECKSUM_BYTES);
    const stored = new DataView(trailer.buffer, trailer.byteOffset, CHECKSUM_BYTES).getUint32(0, true);
    const actual = crc32cOfParts(sliceParts(parts, 0, byteLength - CHECKSUM_BYTES));
    if (stored !== actual) {
      throw new ChecksumMismatchError(
        `${where}: checksum mismatch (stored 0x${hex32(stored)}, computed 0x${hex32(actual)}): the bytes are corrupt`,
      );
    }
  }
  const params = gatherBytes(parts, HEADER_BYTES, paramsLength);
  return {
    version: head.version,
    kind: head.kind,
    hashAlgorithm: head.hashAlgorithm,
    seed: head.seed,
    params: new DataView(params.buffer, params.byteOffset, paramsLength),
    payload: sliceParts(parts, HEADER_BYTES + paramsLength, payloadLength),
    payloadLength,
    byteLength,
  };
}

/** The fixed header's fields (bytes 0-23), checked. */
export interface EnvelopeHeader {
  readonly version: number;
  readonly kind: number;
  readonly hashAlgorithm: HashAlgorithm;
  readonly seed: number;
  readonly paramsLength: number;
  readonly payloadLength: number;
  /** Bytes the envelope occupies, checksum included. */
  readonly byteLength: number;
}

/**
 * Checks the fixed 24-byte header of an envelope that is `total` bytes long (the input's whole length, which the
 * caller may know without holding the bytes: a file's size): magic, version, kind, hash algorithm, flags, reserved
 * bytes, and both lengths against `total`. `header` holds the first min(total, 24) bytes. This is everything
 * {@link decodeEnvelope} checks but the checksum, so a reader of a large file can refuse it before reading (and
 * allocating) its payload.
 */
export function checkEnvelopeHeader(
  header: Uint8Array,
  total: number,
  options: Omit<DecodeOptions, 'verifyChecksum'> = {},
): EnvelopeHeader {
  const where = options.where ?? 'decodeEnvelope';
  // Foreign bytes first (as far as they go), so a short foreign file is called foreign, not short.
  for (let i = 0; i < Math.min(4, header.length); i++) {
    if (header[i] !== MAGIC[i])
      throw new FormatError(`${where}: not a bloomkit filter (magic bytes are not "BLMK")`);
  }
  if (total < MIN_ENVELOPE_BYTES) {
    throw new FormatError(
      `${where}: input is ${total} bytes, shorter than the smallest filter file (${MIN_ENVELOPE_BYTES} bytes)`,
    );
  }
  if (header.length < HEADER_BYTES) {
    throw new InvalidArgumentError(`${where}: give the header's ${HEADER_BYTES} bytes, got ${header.length}`);
  }
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  const version = view.getUint8(4);
  if (version > FORMAT_VERSION) {
    throw new UnsupportedVersionError(
      `${where}: format version ${version} is newer than this reader, which reads versions 1 to ${FORMAT_VERSION}; upgrade @bloomkit/core`,
      version,
    );
  }
  if (version === 0)
    throw new FormatError(`${where}: format version must be in [1, ${FORMAT_VERSION}], got 0`);
  const kind = view.getUint8(5);
  if (kind === 0) throw new FormatError(`${where}: filter kind must be in [1, 255], got 0`);
  const expected = options.expectedKind;
  if (expected !== undefined && kind !== expected.id) {
    throw new FormatError(
      `${where}: these bytes hold a filter of kind ${kind}, not a ${expected.name} filter (kind ${expected.id})`,
    );
  }
  const hashAlgorithm = view.getUint8(6);
  const wanted =
    expected === undefined ? undefined : (expected.hashAlgorithm ?? HashAlgorithm.Murmur3x86_128);
  if (wanted !== undefined && hashAlgorithm !== wanted) {
    throw new FormatError(
      `${where}: hash algorithm must be ${wanted} (${ALGORITHM_NAMES[wanted]}), got ${hashAlgorithm}`,
    );
  }
  if (hashAlgorithm !== HashAlgorithm.Murmur3x86_128 && hashAlgorithm !== HashAlgorithm.Xxh64) {
    throw new FormatError(
      `${where}: hash algorithm must be 1 (MurmurHash3 x86_128) or 2 (XXH64), got ${hashAlgorithm}`,
    );
  }
  if (view.getUint8(7) !== 0) throw new FormatError(`${where}: flags must be 0, got ${view.getUint8(7)}`);
  const seed = view.getUint32(8, true);
  const paramsLength = view.getUint16(12, true);
  if (paramsLength % 8 !== 0)
    throw new FormatError(`${where}: params length must be a multiple of 8, got ${paramsLength}`);
  if (view.getUint16(14, true) !== 0)
    throw new FormatError(`${where}: reserved header bytes 14-15 must be 0`);
  const payloadLength = getUint64(view, 16, where, 'payload length');
  const available = total - MIN_ENVELOPE_BYTES;
  if (paramsLength > available || payloadLength > available - paramsLength) {
    throw new FormatError(
      `${where}: header announces ${paramsLength} params bytes and ${payloadLength} payload bytes, but only ${available} bytes follow the header (truncated?)`,
    );
  }
  const byteLength = envelopeLength(paramsLength, payloadLength);
  if (byteLength !== total && !options.allowTrailing) {
    throw new FormatError(`${where}: ${total - byteLength} unexpected bytes after the filter's checksum`);
  }
  return {
    version,
    kind,
    hashAlgorithm: hashAlgorithm as HashAlgorithm,
    seed,
    paramsLength,
    payloadLength,
    byteLength,
  };
}

/** Writes a non-negative safe integer as u64 little-endian. */
export function setUint64(view: DataView, offset: number, value: number): void {
  view.setUint32(offset, value % 0x100000000, true);
  view.setUint32(offset + 4, Math.floor(value / 0x100000000), true);
}

/** Reads a u64 little-endian that must be a safe integer (< 2^53); `field` names it in the error. */
export function getUint64(view: DataView, offset: number, where: string, field: string): number {
  if (offset + 8 > view.byteLength)
    throw new FormatError(`${where}: ${field} lies past the end of the params`);
  const lo = view.getUint32(offset, true);
  const hi = view.getUint32(offset + 4, true);
  if (hi >= 0x200000) throw new FormatError(`${where}: ${field} must be below 2^53, got a larger value`);
  // Below 2^32 the value is `lo` itself, a small integer: `hi * 2^32 + lo` would be a heap number even when hi is 0,
  // and one count read that way turns the engine's `counted` field into a double field for every filter of the
  // process, which deoptimizes `add` (measured: single-key add of a filter created after a deserialize ran at
  // 6.3-7.0 M/s in most fresh processes, 9.4-9.7 in the rest).
  return hi === 0 ? lo : hi * 0x100000000 + lo;
}

const ALGORITHM_NAMES: Record<number, string> = { 1: 'MurmurHash3 x86_128', 2: 'XXH64' };

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}
