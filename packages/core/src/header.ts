import {
  checkEnvelopeHeader,
  type DecodeOptions,
  decodeEnvelope,
  type EnvelopeHeader,
  HEADER_BYTES,
} from './format.js';
import type { ByteSource } from './parts.js';

/** What the header of any bloomkit file says (docs/FORMAT.md §1), and whether its checksum was verified. */
export interface FilterHeader {
  /** The format version that wrote it. */
  readonly version: number;
  /**
   * The kind id (§2), 1–255. Which kinds exist, with their names and classes, is `@bloomkit/filters`' table
   * (`kindById`); core reads the header of any kind.
   */
  readonly kind: number;
  /** The hash algorithm (byte 6): 1 MurmurHash3 x86_128, 2 XXH64 (the split-block kind). */
  readonly hashAlgorithm: number;
  /** The hash seed. */
  readonly seed: number;
  /** Bytes of the kind's params block (§3). */
  readonly paramsLength: number;
  /** Bytes of the payload: the bits, counters or nested files after the params. */
  readonly payloadLength: number;
  /** The whole envelope, checksum included. */
  readonly byteLength: number;
  /** True when the CRC-32C was checked (and matched); false when `verifyChecksum: false` skipped it. */
  readonly checksumVerified: boolean;
}

/**
 * Reads the header of any bloomkit file — which kind it holds and with which seed — after the envelope checks of
 * FORMAT.md §1 (magic, version, a kind id in [1, 255], lengths against the input, and the checksum unless
 * `verifyChecksum: false`). Throws FormatError for anything that is not a valid envelope; the kind's own params
 * are checked by its class's `deserialize`.
 */
export function readHeader(
  bytes: ByteSource,
  options: Pick<DecodeOptions, 'verifyChecksum'> = {},
): FilterHeader {
  const verifyChecksum = options.verifyChecksum !== false;
  const envelope = decodeEnvelope(bytes, { verifyChecksum, where: 'readHeader' });
  return headerOf({ ...envelope, paramsLength: envelope.params.byteLength }, verifyChecksum);
}

/**
 * Reads the header of a bloomkit file from its first bytes, before the rest is read: `prefix` holds at least the
 * file's first 24 bytes (more is ignored) and `fileLength` is the whole file's size. Every check of
 * {@link readHeader} but the checksum runs, against `fileLength`, so a reader of a large file (a storage engine,
 * the CLI) refuses a foreign, truncated or newer file before it allocates or reads the payload. The checksum is
 * verified when the whole file is decoded.
 */
export function readFileHeader(prefix: Uint8Array, fileLength: number): FilterHeader {
  const head = checkEnvelopeHeader(prefix.subarray(0, HEADER_BYTES), fileLength, { where: 'readFileHeader' });
  return headerOf(head, false);
}

/** The header's facts. */
function headerOf(head: EnvelopeHeader, checksumVerified: boolean): FilterHeader {
  return {
    version: head.version,
    kind: head.kind,
    hashAlgorithm: head.hashAlgorithm,
    seed: head.seed,
    paramsLength: head.paramsLength,
    payloadLength: head.payloadLength,
    byteLength: head.byteLength,
    checksumVerified,
  };
}
