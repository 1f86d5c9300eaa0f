import { FormatError } from '@bloomkit/core';
import { MAX_BITSET_BYTES, MIN_BITSET_BYTES } from './sizing.js';

/**
 * Parquet's `BloomFilterHeader` (parquet.thrift), in Thrift's compact protocol, as it precedes a bitset in a Parquet
 * file:
 *
 *   struct BloomFilterHeader {
 *     1: required i32 numBytes;                          // the bitset's bytes
 *     2: required BloomFilterAlgorithm algorithm;        // union { 1: SplitBlockAlgorithm BLOCK }
 *     3: required BloomFilterHash hash;                  // union { 1: XxHash XXHASH }
 *     4: required BloomFilterCompression compression;    // union { 1: Uncompressed UNCOMPRESSED }
 *   }
 *
 * Compact protocol (thrift/doc/specs/thrift-compact-protocol.md): a field is a byte (id delta << 4 | type), or
 * type 0 with a zigzag varint id when the delta is not in [1, 15]; i32 is a zigzag varint; a struct ends with a 0
 * byte. The union members are empty structs.
 */

/** The header of a bitset: its length and the header's own length. */
export interface ParquetBloomHeader {
  /** The bitset's bytes: a power of two in [32, 2^27]. */
  readonly numBytes: number;
  /** Bytes of the header itself; the bitset starts here. */
  readonly headerLength: number;
}

/** Compact protocol types. */
const STOP = 0;
const TRUE = 1;
const FALSE = 2;
const I8 = 3;
const I16 = 4;
const I32 = 5;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

/** How deeply unknown structs may nest before the header is called corrupt (the real header nests 2 deep). */
const MAX_DEPTH = 16;

/** The bytes a writer puts before a bitset of `numBytes` (what parquet-java, arrow-rs and DuckDB write). */
export function encodeParquetBloomHeader(numBytes: number): Uint8Array {
  const out: number[] = [(1 << 4) | I32];
  // zigzag(numBytes) as a varint: numBytes is positive, so zigzag is 2·numBytes.
  let value = numBytes * 2;
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
  for (let field = 2; field <= 4; field++) out.push((1 << 4) | STRUCT, (1 << 4) | STRUCT, STOP, STOP);
  out.push(STOP);
  return Uint8Array.from(out);
}

/**
 * Reads a `BloomFilterHeader` at `bytes[offset]` and checks it against the bytes that follow: a FormatError naming
 * the field for a missing or duplicated field, an algorithm, hash or compression other than BLOCK, XXHASH and
 * UNCOMPRESSED (an unknown union member included), a numBytes that is not a power of two in [32 B, 128 MiB] or
 * runs past `bytes`, and for Thrift that is truncated or malformed (varints past 5 bytes, nesting past 16, lengths
 * past the input). Unknown fields of the header are skipped, as Thrift readers do. Nothing is allocated from what
 * the header says. `sourceLength` is the length of what `bytes` is the start of (a file of which only the first
 * bytes were read): the bitset is checked against it; default `bytes.length`.
 */
export function readParquetBloomHeader(
  bytes: Uint8Array,
  offset = 0,
  where = 'fromParquet',
  sourceLength: number = bytes.length,
): ParquetBloomHeader {
  const reader = new CompactReader(bytes, offset, where);
  let numBytes: number | undefined;
  const unions = new Set<number>();
  reader.readStruct((id, type) => {
    if (id === 1 && type === I32) {
      if (numBytes !== undefined) throw reader.error('numBytes appears twice');
      numBytes = reader.readI32();
    } else if (id >= 2 && id <= 4 && type === STRUCT) {
      if (unions.has(id)) throw reader.error(`${UNION_NAMES[id]} appears twice`);
      unions.add(id);
      readUnion(reader, id);
    } else if (id >= 1 && id <= 4) {
      throw reader.error(
        `field ${id} (${FIELD_NAMES[id]}) has Thrift type ${type}, not ${id === 1 ? 'i32 (5)' : 'struct (12)'}`,
      );
    } else {
      reader.skip(type, 1);
    }
  });
  if (numBytes === undefined) throw reader.error('the header has no numBytes (field 1)');
  for (let id = 2; id <= 4; id++) {
    if (!unions.has(id)) throw reader.error(`the header has no ${UNION_NAMES[id]} (field ${id})`);
  }
  if (numBytes < MIN_BITSET_BYTES || numBytes > MAX_BITSET_BYTES || (numBytes & (numBytes - 1)) !== 0) {
    throw reader.error(`numBytes must be a power of two in [32, 134217728], got ${numBytes}`);
  }
  const headerLength = reader.position - offset;
  if (numBytes > sourceLength - reader.position) {
    throw reader.error(
      `numBytes is ${numBytes}, but only ${sourceLength - reader.position} bytes follow the header (truncated?)`,
    );
  }
  return { numBytes, headerLength };
}

const FIELD_NAMES: Record<number, string> = { 1: 'numBytes', 2: 'algorithm', 3: 'hash', 4: 'compression' };
const UNION_NAMES: Record<number, string> = { 2: 'algorithm', 3: 'hash', 4: 'compression' };
const MEMBER_NAMES: Record<number, string> = { 2: 'BLOCK', 3: 'XXHASH', 4: 'UNCOMPRESSED' };

/** One of the three unions: exactly member 1, an empty struct (its unknown fields skipped). */
function readUnion(reader: CompactReader, field: number): void {
  let members = 0;
  reader.readStruct((id, type) => {
    if (id !== 1 || type !== STRUCT) {
      throw reader.error(
        `${UNION_NAMES[field]} has member ${id} (Thrift type ${type}); this reader knows only 1, ${MEMBER_NAMES[field]}`,
      );
    }
    members++;
    reader.skip(STRUCT, 2);
  });
  if (members !== 1) throw reader.error(`${UNION_NAMES[field]} must set one member, it sets ${members}`);
}

/** A cursor over compact-protocol bytes that never reads past the input. */
class CompactReader {
  position: number;
  constructor(
    private readonly bytes: Uint8Array,
    offset: number,
    private readonly where: string,
  ) {
    this.position = offset;
  }

  error(message: string): FormatError {
    return new FormatError(`${this.where}: Parquet BloomFilterHeader: ${message}`);
  }

  byte(): number {
    if (this.position >= this.bytes.length) throw this.error('truncated (the input ends inside the header)');
    return this.bytes[this.position++]!;
  }

  /** An unsigned varint of at most `maxBytes` bytes, as a number (exact below 2^53). */
  varint(maxBytes: number): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < maxBytes; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw this.error(`a varint runs past ${maxBytes} bytes`);
  }

  readI32(): number {
    const zigzag = this.varint(5);
    if (zigzag > 0xffffffff) throw this.error('an i32 varint is past 32 bits');
    return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
  }

  /** Reads a struct's fields up to its STOP, handing each (id, type) to `field`, which must consume the value. */
  readStruct(field: (id: number, type: number) => void): void {
    let last = 0;
    for (;;) {
      const head = this.byte();
      const type = head & 0x0f;
      if (type === STOP) return;
      const delta = head >>> 4;
      let id: number;
      if (delta === 0) {
        const zigzag = this.varint(3);
        id = zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
      } else {
        id = last + delta;
      }
      last = id;
      field(id, type);
    }
  }

  /** Skips a value of `type`, `depth` levels into the header. */
  skip(type: number, depth: number): void {
    if (depth > MAX_DEPTH) throw this.error(`values nest deeper than ${MAX_DEPTH} levels`);
    switch (type) {
      case TRUE:
      case FALSE:
        return;
      case I8:
        this.byte();
        return;
      case I16:
      case I32:
      case I64:
        this.varint(10);
        return;
      case DOUBLE:
        this.advance(8);
        return;
      case BINARY:
        this.advance(this.varint(5));
        return;
      case LIST:
      case SET: {
        const head = this.byte();
        const size = head >>> 4 === 15 ? this.varint(5) : head >>> 4;
        this.checkCount(size);
        for (let i = 0; i < size; i++) this.skipElement(head & 0x0f, depth + 1);
        return;
      }
      case MAP: {
        const size = this.varint(5);
        if (size === 0) return;
        this.checkCount(size);
        const types = this.byte();
        for (let i = 0; i < size; i++) {
          this.skipElement(types >>> 4, depth + 1);
          this.skipElement(types & 0x0f, depth + 1);
        }
        return;
      }
      case STRUCT:
        this.readStruct((_, inner) => this.skip(inner, depth + 1));
        return;
      default:
        throw this.error(`unknown Thrift type ${type} at byte ${this.position - 1}`);
    }
  }

  /** A list element: a boolean in a list is one byte. */
  private skipElement(type: number, depth: number): void {
    if (type === TRUE || type === FALSE) this.byte();
    else this.skip(type, depth);
  }

  /** A count of elements can be no more than the bytes left (every element takes at least one). */
  private checkCount(size: number): void {
    if (size > this.bytes.length - this.position) {
      throw this.error(`a collection of ${size} elements is longer than the bytes left`);
    }
  }

  private advance(length: number): void {
    if (length > this.bytes.length - this.position)
      throw this.error('truncated (a value runs past the input)');
    this.position += length;
  }
}
