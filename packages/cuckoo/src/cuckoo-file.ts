import { type ByteSource, type DeserializeOptions, FormatError, InvalidArgumentError } from '@bloomkit/core';
import { checkAllocation, decodeChain, readDeserializeOptions, setUint64 } from '@bloomkit/core/internal';
import { crc32c } from '@bloomkit/core/kit';
import { type CuckooParams, cuckooKind, readParams } from './cuckoo-codec.js';
import { SlotTable } from './slot-table.js';

/** A kind-10 file once read: its params, seed and table, and the array it was read from when it works in place. */
export interface CuckooFile {
  readonly params: CuckooParams;
  readonly seed: number;
  readonly table: SlotTable;
  /** The whole file, when the table is a view of it (`copy: false` of one array). */
  readonly inPlace: Uint8Array | undefined;
}

/** Byte offset of the params' fingerprint count in a top-level file: header (24) + offset 24 in the params. */
const HELD_AT = 24 + 24;

/**
 * Reads a file of kind 10 (docs/FORMAT.md §3.9): the envelope and params checked before anything is allocated, the
 * table copied (or, with `copy: false` of one array, read in place: the checksum's four bytes after the payload are
 * the table's three bytes of slack), then the pad bits and the stored count checked against the slots.
 */
export function readCuckooFile(
  bytes: ByteSource,
  options: DeserializeOptions | undefined,
  where: string,
): CuckooFile {
  const read = readDeserializeOptions(where, options);
  const envelope = decodeChain(cuckooKind, bytes, { verifyChecksum: read.verifyChecksum, where });
  const params = readParams(envelope.params, envelope.payloadLength, where);
  const slots = params.buckets * params.bucketSize;
  const payload = envelope.payload.length === 1 ? envelope.payload[0]! : undefined;
  const whole = bytes instanceof Uint8Array ? bytes : undefined;
  let table: SlotTable;
  let inPlace: Uint8Array | undefined;
  if (!read.copy && payload !== undefined && whole !== undefined) {
    const view = new Uint8Array(payload.buffer, payload.byteOffset, payload.length + 3);
    table = new SlotTable(view, payload.length, params.fingerprintBits, slots);
    inPlace = whole;
  } else {
    checkAllocation(where, envelope.payloadLength, undefined);
    table = SlotTable.empty(slots, params.fingerprintBits);
    let at = 0;
    for (const part of envelope.payload) {
      table.bytes.set(part, at);
      at += part.length;
    }
  }
  const held = checkedHeld(table, where);
  if (held !== params.held) {
    throw new FormatError(`${where}: the params say ${params.held} fingerprints, the slots hold ${held}`);
  }
  return { params, seed: envelope.seed, table, inPlace };
}

/** The fingerprints the table holds, once its pad bits are checked to be 0 (FormatError otherwise). */
export function checkedHeld(table: SlotTable, where: string): number {
  const census = table.census();
  if (!census.padClear) throw new FormatError(`${where}: the pad bits after the last slot must be 0`);
  return census.held;
}

/**
 * Writes the fingerprint count and the checksum into the file a filter read in place works in, and returns it;
 * InvalidArgumentError for a filter that does not work in place (`file` undefined).
 */
export function syncCuckooFile(where: string, file: Uint8Array | undefined, held: number): Uint8Array {
  if (file === undefined) {
    throw new InvalidArgumentError(
      `${where}: this filter does not work in place (it was not read with copy: false from one array); use serialize()`,
    );
  }
  const view = new DataView(file.buffer, file.byteOffset, file.length);
  setUint64(view, HELD_AT, held);
  view.setUint32(file.length - 4, crc32c(file.subarray(0, file.length - 4)), true);
  return file;
}
