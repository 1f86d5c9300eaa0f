import { FormatError, UnsupportedVersionError } from './errors.js';
import { decodeEnvelope, type Envelope, encodeEnvelopeParts, HashAlgorithm } from './format.js';
import type { KindRecord } from './kinds.js';
import { type ByteSource, gatherBytes, lengthOf, sliceParts } from './parts.js';
import { checkOneArray } from './single-filter-codec.js';

/**
 * The codec of a chained kind (docs/FORMAT.md §3.4, kind 4 scalable, and any later kind whose payload is a list of
 * filters): the outer envelope's payload is `count` complete envelopes of the sub-filters' kind, one after the
 * other, and nothing else. The chain's params (its count among them) are the kind's own business; this reads and
 * writes what every chain shares. Nothing is copied: sub-filters are views of the input.
 */

/** What a chain file holds once its outer envelope is checked: the envelope (params, seed, version) and payload. */
export type ChainEnvelope = Envelope;

/** Reads and checks the outer envelope of a chain of kind `kind` (the checksum unless `verifyChecksum` is false). */
export function decodeChain(
  kind: KindRecord,
  bytes: ByteSource,
  options: { readonly verifyChecksum: boolean; readonly where: string },
): ChainEnvelope {
  return decodeEnvelope(bytes, {
    expectedKind: kind,
    verifyChecksum: options.verifyChecksum,
    where: options.where,
  });
}

/**
 * The bytes of each of the `count` sub-filters of kind `subKind` in a chain's payload, in order, as views. Each
 * nested header is read in O(1) (its own full check is the sub-kind's deserialize); each must have the outer
 * file's format version, and no byte may follow the last. FormatError otherwise.
 */
export function splitChain(
  chain: ChainEnvelope,
  subKind: KindRecord,
  count: number,
  where: string,
): ByteSource[] {
  const { payload, payloadLength } = chain;
  const out: ByteSource[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const rest = sliceParts(payload, offset, payloadLength - offset);
    const { byteLength, version } = nestedEnvelope(
      () =>
        decodeEnvelope(rest, { expectedKind: subKind, allowTrailing: true, verifyChecksum: false, where }),
      `${where}: sub-filter ${i}`,
      chain.version,
    );
    if (version !== chain.version) {
      throw new FormatError(
        `${where}: sub-filter ${i} has format version ${version}, the file ${chain.version}`,
      );
    }
    out.push(sliceParts(rest, 0, byteLength));
    offset += byteLength;
  }
  if (offset !== payloadLength) {
    throw new FormatError(`${where}: ${payloadLength - offset} bytes after the last sub-filter`);
  }
  return out;
}

/** A chain file as parts: the outer header and params, each sub-filter's parts (views), the checksum. */
export function encodeChainParts(
  kind: KindRecord,
  seed: number,
  params: Uint8Array,
  subFilters: readonly { serializeParts(): Uint8Array[] }[],
): Uint8Array[] {
  return encodeNestedParts(
    kind,
    seed,
    params,
    subFilters.flatMap((filter) => filter.serializeParts()),
  );
}

/**
 * A file of a kind that nests envelopes in its payload (a chain, or a wrapper such as kind 6 whose payload is one
 * nested filter and data of its own), as parts: the header and params, the payload parts as given (views, not
 * copied), the checksum.
 */
export function encodeNestedParts(
  kind: KindRecord,
  seed: number,
  params: Uint8Array,
  payload: readonly Uint8Array[],
): Uint8Array[] {
  return encodeEnvelopeParts({
    kind: kind.id,
    hashAlgorithm: kind.hashAlgorithm ?? HashAlgorithm.Murmur3x86_128,
    seed,
    params,
    payload,
  });
}

/**
 * Bytes [offset, offset + length) of a decoded envelope's payload, as views (a nested envelope, or a kind's own
 * data after it). The caller checked the range against `payloadLength`.
 */
export function payloadRange(envelope: ChainEnvelope, offset: number, length: number): Uint8Array[] {
  return sliceParts(envelope.payload, offset, length);
}

/** The parts of a file gathered into one array, or an InvalidArgumentError past one array's limit (serialize). */
export function joinParts(kind: KindRecord, parts: readonly Uint8Array[]): Uint8Array {
  const length = lengthOf(parts);
  checkOneArray(kind, length);
  return gatherBytes(parts as Uint8Array[], 0, length);
}

/**
 * Decodes a nested envelope with `decode`, where a newer format version than the outer file's is a FormatError (the
 * outer version was already found readable, so the file is inconsistent, not newer: docs/FORMAT.md §3), not an
 * UnsupportedVersionError. `what` names the nested envelope in the message.
 */
function nestedEnvelope<T>(decode: () => T, what: string, outerVersion: number): T {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof UnsupportedVersionError)) throw error;
    throw new FormatError(`${what} has format version ${error.version}, the file ${outerVersion}`);
  }
}
