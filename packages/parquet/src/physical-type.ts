import { InvalidArgumentError } from '@bloomkit/core';

/**
 * Parquet's physical types (parquet.thrift `Type`), by name: what a column's values are stored as, and so which bytes
 * a split-block filter hashes (apache/parquet-format BloomFilter.md, "Technical Approach": the plain encoding of
 * the value, without a BYTE_ARRAY's length prefix). Logical types hash their physical value: DATE is INT32 days,
 * TIMESTAMP and TIME INT64 (or INT32) units, DECIMAL its INT32, INT64 or FIXED_LEN_BYTE_ARRAY, STRING, ENUM and JSON
 * a BYTE_ARRAY of UTF-8, UUID a 16-byte FIXED_LEN_BYTE_ARRAY. INT96 (deprecated) is not hashed by any writer.
 */
export const PHYSICAL_TYPES = [
  'BOOLEAN',
  'INT32',
  'INT64',
  'INT96',
  'FLOAT',
  'DOUBLE',
  'BYTE_ARRAY',
  'FIXED_LEN_BYTE_ARRAY',
] as const;

/** A physical type's name; its index in {@link PHYSICAL_TYPES} is its code in parquet.thrift and in bloomkit files. */
export type PhysicalType = (typeof PHYSICAL_TYPES)[number];

/**
 * A value as a split-block filter takes it, by its column's physical type:
 * - BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: a string (hashed as its UTF-8 bytes) or a Uint8Array (its bytes);
 * - INT32: an integer in [−2^31, 2^31 − 1], a number or a bigint (4 little-endian bytes, two's complement);
 * - INT64: an integer in [−2^63, 2^63 − 1], a bigint, or a number that is a safe integer (8 bytes);
 * - FLOAT and DOUBLE: a number (its IEEE 754 binary32 or binary64 bytes, so −0 and +0 differ, as in every writer);
 * - BOOLEAN: true or false (one byte).
 */
export type ParquetValue = string | Uint8Array | number | bigint | boolean;

/** The types whose values are bytes (strings as UTF-8, or a Uint8Array). */
export function isByteType(type: PhysicalType): boolean {
  return type === 'BYTE_ARRAY' || type === 'FIXED_LEN_BYTE_ARRAY';
}

/** The code of a physical type's name, or an InvalidArgumentError naming `parameter` and the names. */
export function physicalTypeCode(where: string, parameter: string, type: unknown): number {
  const code = PHYSICAL_TYPES.indexOf(type as PhysicalType);
  if (code < 0 || type === 'INT96') {
    throw new InvalidArgumentError(
      `${where}: ${parameter} must be one of ${PHYSICAL_TYPES.filter((name) => name !== 'INT96').join(', ')}, got ${describeValue(type)}`,
    );
  }
  return code;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Writes the plain bytes of a value of a fixed-width type (all but the byte types) at `view[at]`; returns how many
 * (1, 4 or 8). A value that is not of the column's type is an InvalidArgumentError naming it and the type: never a
 * silent "absent".
 */
export function writeFixedValue(
  where: string,
  type: PhysicalType,
  value: unknown,
  view: DataView,
  at: number,
): number {
  switch (type) {
    case 'INT32':
      if (typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) {
        view.setInt32(at, value, true);
        return 4;
      }
      if (typeof value === 'bigint' && value >= INT32_MIN && value <= INT32_MAX) {
        view.setInt32(at, Number(value), true);
        return 4;
      }
      break;
    case 'INT64':
      if (typeof value === 'number' && Number.isSafeInteger(value)) {
        // Two's complement of a safe integer, without a bigint: the low word, then the high word with its sign.
        view.setUint32(at, value >>> 0, true);
        view.setInt32(at + 4, Math.floor(value / 0x100000000), true);
        return 8;
      }
      if (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX) {
        view.setBigInt64(at, value, true);
        return 8;
      }
      break;
    case 'FLOAT':
      if (typeof value === 'number') {
        view.setFloat32(at, value, true);
        return 4;
      }
      break;
    case 'DOUBLE':
      if (typeof value === 'number') {
        view.setFloat64(at, value, true);
        return 8;
      }
      break;
    case 'BOOLEAN':
      if (typeof value === 'boolean') {
        view.setUint8(at, value ? 1 : 0);
        return 1;
      }
      break;
    default:
      break;
  }
  throw new InvalidArgumentError(
    `${where}: value must be ${TYPE_RANGES[type]} for a column of type ${type}, got ${describeValue(value)}`,
  );
}

/** Throws unless `value` is a string or a Uint8Array, for a byte type. */
export function checkByteValue(where: string, type: PhysicalType, value: unknown): void {
  if (typeof value !== 'string' && !(value instanceof Uint8Array)) {
    throw new InvalidArgumentError(
      `${where}: value must be ${TYPE_RANGES[type]} for a column of type ${type}, got ${describeValue(value)}`,
    );
  }
}

const TYPE_RANGES: Record<PhysicalType, string> = {
  BOOLEAN: 'true or false',
  INT32: 'an integer in [-2^31, 2^31 - 1] (a number or a bigint)',
  INT64: 'a safe integer or a bigint in [-2^63, 2^63 - 1]',
  INT96: 'not hashed',
  FLOAT: 'a number',
  DOUBLE: 'a number',
  BYTE_ARRAY: 'a string or a Uint8Array',
  FIXED_LEN_BYTE_ARRAY: 'a string or a Uint8Array',
};

/** A value for a message: its type, and the value when it is short. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return `${typeof value} ${String(value)}`;
  }
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}
