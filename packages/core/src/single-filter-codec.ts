import { BitArray } from './bit-array.js';
import { crc32c } from './checksum.js';
import { CounterArray, type CounterBits } from './counter-array.js';
import { FormatError, InvalidArgumentError } from './errors.js';
import { type DeserializeOptions, readDeserializeOptions } from './filter.js';
import { decodeFilterParams, encodeFilterParams } from './filter-params.js';
import {
  CHECKSUM_BYTES,
  decodeEnvelope,
  encodeEnvelope,
  encodeEnvelopeParts,
  envelopeLength,
  HEADER_BYTES,
} from './format.js';
import type { KindRecord } from './kinds.js';
import { newBitArray } from './new-bit-array.js';
import { newCounterArray } from './new-counter-array.js';
import { type ByteSource, toParts } from './parts.js';
import type { FilterState, ResolvedShape } from './shape.js';
import type { FilterStore } from './storage.js';

/**
 * The one codec of the single-filter envelope (docs/FORMAT.md §3.1–3.3): kinds 1 standard, 2 partitioned,
 * 3 counting and 5 blocked (and any single kind), over a bit array (counter width 0) or a counter array (4, 8
 * or 16 bits).
 */

/** What the params block records besides the shape. */
export interface SingleFilterFacts {
  readonly count: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
}

/** Writes a single filter's envelope. */
export function encodeSingleFilter(
  kind: KindRecord,
  shape: ResolvedShape,
  store: FilterStore<unknown>,
  facts: SingleFilterFacts,
): Uint8Array {
  const params = paramsOf(shape, store, facts);
  checkOneArray(kind, envelopeLength(params.length, store.byteLength));
  return encodeEnvelope({
    kind: kind.id,
    seed: shape.seed,
    params,
    payloadLength: store.byteLength,
    writePayload: (target, offset) => store.copyTo(target, offset),
  });
}

/**
 * Rewrites, in `file` (the envelope `store` was read from in place), the params block (the count may have changed)
 * and the checksum, so the bytes are again a valid file of the filter. O(m): the CRC covers the payload.
 */
export function rewriteInPlace(
  kind: KindRecord,
  shape: ResolvedShape,
  store: FilterStore<unknown>,
  facts: SingleFilterFacts,
  file: Uint8Array,
): void {
  const params = paramsOf(shape, store, facts);
  const payloadAt = HEADER_BYTES + params.length;
  const page = store.pages[0]!;
  if (
    store.pages.length !== 1 ||
    page.buffer !== file.buffer ||
    page.byteOffset !== file.byteOffset + payloadAt ||
    file.length !== envelopeLength(params.length, store.byteLength)
  ) {
    throw new InvalidArgumentError(
      `${kind.className}.syncBytes: the storage is no longer a view of the bytes it was read from`,
    );
  }
  file.set(params, HEADER_BYTES);
  const end = file.length - CHECKSUM_BYTES;
  new DataView(file.buffer, file.byteOffset + end, CHECKSUM_BYTES).setUint32(
    0,
    crc32c(file.subarray(0, end)),
    true,
  );
}

/** A single filter's envelope as parts: header and params, the store's pages (views), the checksum. */
export function encodeSingleFilterParts(
  kind: KindRecord,
  shape: ResolvedShape,
  store: FilterStore<unknown>,
  facts: SingleFilterFacts,
): Uint8Array[] {
  return encodeEnvelopeParts({
    kind: kind.id,
    seed: shape.seed,
    params: paramsOf(shape, store, facts),
    payload: store.pages,
  });
}

/** The largest Uint8Array Node 20 allows (V8's limit there; newer runtimes allow more, but files stay portable). */
const MAX_ARRAY_BYTES = 2 ** 32;

/** Refuses to build one array past the runtime's limit, pointing to `serializeParts`. */
export function checkOneArray(kind: { readonly className: string }, length: number): void {
  if (length > MAX_ARRAY_BYTES) {
    throw new InvalidArgumentError(
      `${kind.className}.serialize: the file is ${length} bytes, more than one Uint8Array holds (${MAX_ARRAY_BYTES}); use serializeParts() and write the parts in order`,
    );
  }
}

function paramsOf(shape: ResolvedShape, store: FilterStore<unknown>, facts: SingleFilterFacts): Uint8Array {
  return encodeFilterParams({
    bits: shape.bits,
    hashes: shape.hashes,
    counterBits: store.counterBits,
    count: facts.count,
    capacity: facts.capacity,
    fpr: facts.fpr,
  });
}

/** A decoded single filter: its shape (with the counter width) and its state over the payload. */
export interface DecodedSingleFilter<S> {
  readonly shape: ResolvedShape & { readonly counterBits: number };
  readonly state: FilterState<S>;
}

/**
 * Reads a single filter of `kind`: the envelope (§1), the params (§3.1: a counter width the kind allows; for the
 * partitioned layout m a multiple of k), a payload of exactly the size the params imply, and no set padding bit.
 * With `copy: false` the store is a view of `bytes` (see DeserializeOptions for that contract); from a list of
 * parts, a view only when the payload parts are page-sized (else copied).
 */
export function decodeSingleFilter<S extends BitArray | CounterArray>(
  kind: KindRecord,
  bytes: ByteSource,
  options: DeserializeOptions | undefined,
): DecodedSingleFilter<S> {
  const where = `${kind.className}.deserialize`;
  const { copy, verifyChecksum } = readDeserializeOptions(where, options);
  const envelope = decodeEnvelope(bytes, { expectedKind: kind, verifyChecksum, where });
  const params = decodeFilterParams(envelope.params, where);
  const { bits, hashes, counterBits } = params;
  if (!kind.counterWidths.includes(counterBits)) {
    throw new FormatError(
      `${where}: counter width must be ${orList(kind.counterWidths)}, got ${counterBits}`,
    );
  }
  const unit = kind.layout.bitsUnit(hashes);
  if (bits % unit !== 0) {
    throw new FormatError(
      `${where}: bits (${bits}) must be a multiple of ${unit} for the ${kind.layout.name} layout`,
    );
  }
  const payload = envelope.payload;
  const payloadLength = envelope.payloadLength;
  const width = counterBits === 0 ? 1 : counterBits;
  const expected = Math.ceil((bits * width) / 8);
  if (payloadLength !== expected) {
    throw new FormatError(
      `${where}: payload must be ${expected} bytes for ${counterBits === 0 ? `${bits} bits` : `${bits} counters of ${counterBits} bits`}, got ${payloadLength}`,
    );
  }
  const store =
    counterBits === 0
      ? copy
        ? newBitArray(bits, payload)
        : new BitArray(bits, { bytes: payload, copy })
      : copy
        ? newCounterArray(bits, counterBits as CounterBits, payload)
        : new CounterArray(bits, counterBits as CounterBits, { bytes: payload, copy });
  if (store.hasPaddingBits()) {
    throw new FormatError(
      `${where}: ${counterBits === 0 ? 'bits past the end of the filter are set' : 'the unused nibble after the last counter is set'}`,
    );
  }
  const parts = toParts(bytes, where);
  const inPlace = !copy && parts.length === 1 ? parts[0]!.subarray(0, envelope.byteLength) : undefined;
  return {
    shape: { bits, hashes, seed: envelope.seed, counterBits },
    state: { storage: store as S, count: params.count, capacity: params.capacity, fpr: params.fpr, inPlace },
  };
}

/** "4, 8 or 16". */
function orList(values: readonly number[]): string {
  return values.length === 1 ? String(values[0]) : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
