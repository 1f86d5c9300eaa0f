import { type DecodeOptions, decodeEnvelope } from './format.js';
import { kindById } from './kinds.js';
import type { ByteSource } from './parts.js';

/** What the header of any bloomkit file says (docs/FORMAT.md §1), and whether its checksum was verified. */
export interface FilterHeader {
  /** The format version that wrote it. */
  readonly version: number;
  /** The kind id (§2) and its name: `standard`, `partitioned`, `counting`, `scalable`. */
  readonly kind: number;
  readonly kindName: string;
  /** The class that reads this kind, e.g. `StandardBloomFilter` in `@bloomkit/standard`. */
  readonly className: string;
  /** The hash seed. */
  readonly seed: number;
  readonly paramsLength: number;
  readonly payloadLength: number;
  /** The whole envelope, checksum included. */
  readonly byteLength: number;
  /** True when the CRC-32C was checked (and matched); false when `verifyChecksum: false` skipped it. */
  readonly checksumVerified: boolean;
}

/**
 * Reads the header of any bloomkit file — which kind it holds and with which seed — after the envelope checks of
 * FORMAT.md §1 (magic, version, known kind, lengths against the input, and the checksum unless
 * `verifyChecksum: false`). Throws FormatError for anything that is not a valid envelope; the kind's own params
 * are checked by its class's `deserialize`.
 */
export function readHeader(
  bytes: ByteSource,
  options: Pick<DecodeOptions, 'verifyChecksum'> = {},
): FilterHeader {
  const verifyChecksum = options.verifyChecksum !== false;
  const envelope = decodeEnvelope(bytes, { verifyChecksum, where: 'readHeader' });
  const record = kindById(envelope.kind)!;
  return {
    version: envelope.version,
    kind: envelope.kind,
    kindName: record.name,
    className: record.className,
    seed: envelope.seed,
    paramsLength: envelope.params.byteLength,
    payloadLength: envelope.payloadLength,
    byteLength: envelope.byteLength,
    checksumVerified: verifyChecksum,
  };
}
