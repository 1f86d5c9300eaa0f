import { type ByteSource, type DeserializeOptions, FormatError, type KindRecord } from '@bloomkit/core';
import {
  checkAllocation,
  decodeChain,
  encodeNestedParts,
  getUint64,
  readDeserializeOptions,
  setUint64,
} from '@bloomkit/core/internal';
import { PHYSICAL_TYPES, type PhysicalType } from './physical-type.js';
import { BLOCK_BYTES, MAX_BITSET_BYTES, splitBlockLayout } from './sizing.js';
import { LITTLE_ENDIAN, wordsOfParts } from './split-block-bits.js';

/** Kind 8 of docs/FORMAT.md: Parquet's split-block filter, hashed by XXH64 (algorithm 2). */
export const splitBlockKind: KindRecord = {
  id: 8,
  name: 'parquet',
  className: 'SplitBlockBloomFilter',
  params: 'split-block',
  layout: splitBlockLayout,
  counterWidths: [0],
  hashAlgorithm: 2,
};

/**
 * The params block of kind 8 (docs/FORMAT.md §3.7), 32 bytes, little-endian:
 *
 *   0  u32  z, blocks of 32 bytes: a power of two in [1, 2^22]
 *   4  u8   the column's physical type (parquet.thrift `Type`: 0 BOOLEAN … 7 FIXED_LEN_BYTE_ARRAY; not 3, INT96)
 *   5  u8   zero                          6  u16 zero
 *   8  u64  adds that returned true
 *   16 u64  capacity given to create (0: none)
 *   24 f64  target rate given to create (0: none), in (0, 1)
 *
 * The payload is the bitset exactly as Parquet stores it after its header: z blocks of eight little-endian u32
 * words. The envelope's seed is 0 and its hash algorithm 2.
 */
export const PARAMS_BYTES = 32;

/** What the params say. */
export interface SplitBlockParams {
  readonly blocks: number;
  readonly type: PhysicalType;
  readonly count: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
}

/** Writes the params block. */
export function writeParams(params: SplitBlockParams): Uint8Array {
  const out = new Uint8Array(PARAMS_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, params.blocks, true);
  view.setUint8(4, PHYSICAL_TYPES.indexOf(params.type));
  setUint64(view, 8, params.count);
  setUint64(view, 16, params.capacity ?? 0);
  view.setFloat64(24, params.fpr ?? 0, true);
  return out;
}

/** Reads and checks the params block against the payload's length and the header's seed; FormatError naming the field. */
export function readParams(
  view: DataView,
  payloadLength: number,
  seed: number,
  where: string,
): SplitBlockParams {
  if (view.byteLength !== PARAMS_BYTES) {
    throw new FormatError(`${where}: params length must be ${PARAMS_BYTES}, got ${view.byteLength}`);
  }
  if (seed !== 0)
    throw new FormatError(`${where}: seed must be 0 (Parquet hashes with XXH64 seed 0), got ${seed}`);
  const blocks = view.getUint32(0, true);
  if (blocks < 1 || blocks > MAX_BITSET_BYTES / BLOCK_BYTES || (blocks & (blocks - 1)) !== 0) {
    throw new FormatError(`${where}: blocks must be a power of two in [1, 2^22], got ${blocks}`);
  }
  if (payloadLength !== blocks * BLOCK_BYTES) {
    throw new FormatError(
      `${where}: ${blocks} blocks are ${blocks * BLOCK_BYTES} bytes, the payload is ${payloadLength}`,
    );
  }
  const code = view.getUint8(4);
  if (code >= PHYSICAL_TYPES.length || PHYSICAL_TYPES[code] === 'INT96') {
    throw new FormatError(`${where}: physical type must be 0-2 or 4-7 (parquet.thrift Type), got ${code}`);
  }
  if (view.getUint8(5) !== 0 || view.getUint16(6, true) !== 0) {
    throw new FormatError(`${where}: params bytes 5-7 must be 0`);
  }
  const count = getUint64(view, 8, where, 'count');
  const capacity = getUint64(view, 16, where, 'capacity');
  const fpr = view.getFloat64(24, true);
  if (!(fpr === 0 || (fpr > 0 && fpr < 1)) || Object.is(fpr, -0)) {
    throw new FormatError(`${where}: target rate must be 0 (none) or in (0, 1), got ${fpr}`);
  }
  if ((capacity === 0) !== (fpr === 0)) {
    throw new FormatError(`${where}: capacity and target rate are given together or not at all`);
  }
  return {
    blocks,
    type: PHYSICAL_TYPES[code]!,
    count,
    capacity: capacity === 0 ? undefined : capacity,
    fpr: fpr === 0 ? undefined : fpr,
  };
}

/** A filter's state: its column type, its bitset's words, its count and what `create` was given. */
export interface SplitBlockState {
  readonly type: PhysicalType;
  readonly words: Uint32Array;
  readonly count: number;
  readonly capacity: number | undefined;
  readonly fpr: number | undefined;
}

/** The file of a filter (docs/FORMAT.md §3.7) as parts; the payload part is `bitset`, not a copy. */
export function encodeSplitBlockParts(state: SplitBlockState, bitset: Uint8Array): Uint8Array[] {
  const { type, count, capacity, fpr } = state;
  const params = writeParams({ blocks: state.words.length / 8, type, count, capacity, fpr });
  return encodeNestedParts(splitBlockKind, 0, params, [bitset]);
}

/**
 * Reads a filter's file: its state, and `bytes` themselves when the words can be read in place (`copy: false`,
 * one array, a little-endian host, a 4-byte aligned payload), else a copy. FormatError naming the field.
 */
export function decodeSplitBlock(
  bytes: ByteSource,
  where: string,
  options: (DeserializeOptions & { readonly maxBytes?: number | undefined }) | undefined,
): { state: SplitBlockState; inPlace: Uint8Array | undefined } {
  const read = readDeserializeOptions(where, options);
  const envelope = decodeChain(splitBlockKind, bytes, { verifyChecksum: read.verifyChecksum, where });
  const params = readParams(envelope.params, envelope.payloadLength, envelope.seed, where);
  checkAllocation(where, read.copy ? envelope.payloadLength : 0, options?.maxBytes);
  const payload = envelope.payload;
  const single = payload.length === 1 ? payload[0]! : undefined;
  const inPlace =
    !read.copy &&
    bytes instanceof Uint8Array &&
    single !== undefined &&
    LITTLE_ENDIAN &&
    (single.byteOffset & 3) === 0;
  const words = inPlace
    ? new Uint32Array(single.buffer, single.byteOffset, single.length / 4)
    : wordsOfParts(payload, envelope.payloadLength);
  return { state: { ...params, words }, inPlace: inPlace ? (bytes as Uint8Array) : undefined };
}
