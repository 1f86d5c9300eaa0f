import { InvalidArgumentError } from '@bloomkit/core';
import type { ParquetColumn } from './parquet-file.js';
import type { ParquetValue } from './physical-type.js';
import { dateFromText, intervalFromText, timeFromText, timestampFromText } from './text-times.js';

const INTEGER = /^[+-]?\d+$/;
/** A decimal number: digits with an optional point and exponent (no hex, no separators). */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,6}))?$/;
const UUID = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/** An unsigned or small integer type's range and whether its physical INT32/INT64 holds it as a signed wrap. */
const INTEGER_RANGES = {
  INT8: [-(2n ** 7n), 2n ** 7n - 1n],
  INT16: [-(2n ** 15n), 2n ** 15n - 1n],
  UINT8: [0n, 2n ** 8n - 1n],
  UINT16: [0n, 2n ** 16n - 1n],
  UINT32: [0n, 2n ** 32n - 1n],
  UINT64: [0n, 2n ** 64n - 1n],
} as const;

/**
 * A value of `column` written as text, as a shell, a query result or DuckDB prints it, turned into the physical value
 * the writer hashed (apache/parquet-format LogicalTypes.md), so that a present value is never answered absent:
 * - text, JSON, ENUM, BSON and plain bytes: the text itself (a FIXED_LEN_BYTE_ARRAY's must have its length);
 * - UUID: `8-4-4-4-12` hex digits (dashes and braces optional), as its 16 bytes;
 * - DECIMAL(p, s): a decimal number (`12`, `12.5`, `-0.01`, `1.2e3`), as its unscaled integer (`12` at scale 2 is
 *   1200) in the physical type: INT32, INT64, or big-endian two's complement bytes; more than s decimal places or
 *   p digits is an error, never a rounding;
 * - INT8, INT16 and the unsigned UINT8 … UINT64: a decimal integer in the type's range (a UINT32 or UINT64 above the
 *   signed maximum is stored as its two's complement wrap, as writers store it);
 * - DATE: `YYYY-MM-DD` or days; TIME: `HH:MM:SS[.fraction]` or units since midnight; TIMESTAMP:
 *   `YYYY-MM-DD[ HH:MM[:SS[.fraction]]]` with an optional UTC offset (`Z`, `+HH`, `+HH:MM`) or units since the
 *   epoch, in the column's unit (a fraction finer than the unit is an error); INTERVAL: `N years N months N days
 *   HH:MM:SS[.mmm]` (any part), as its 12 bytes;
 * - FLOAT, DOUBLE and FLOAT16: a decimal number, `NaN`, `Infinity` or `inf` (either sign), rounded to the type as
 *   any writer rounds it;
 * - INT32 and INT64: a decimal integer in range; BOOLEAN `true` or `false`.
 * Anything else is an InvalidArgumentError naming the column, its type and what it takes.
 */
export function valueFromText(column: ParquetColumn, text: string): ParquetValue {
  const bad = (what: string): never => {
    const type =
      column.logicalType === 'DECIMAL'
        ? `DECIMAL(${column.precision ?? '?'}, ${column.scale ?? 0})`
        : (column.logicalType ?? column.type);
    throw new InvalidArgumentError(
      `valueFromText: column ${column.name} (${type}) takes ${what}, got "${text}"`,
    );
  };
  switch (column.logicalType) {
    case 'UUID':
      return uuidBytes(text) ?? bad('a UUID of 32 hex digits, 8-4-4-4-12');
    case 'DECIMAL':
      return decimalValue(column, text, bad);
    case 'FLOAT16':
      return float16Bytes(floatFromText(text) ?? bad('a number'));
    case 'DATE':
      if (column.type === 'INT32') return dateFromText(text, bad);
      break;
    case 'TIME_MILLIS':
    case 'TIME_MICROS':
    case 'TIME_NANOS':
      return timeFromText(column.logicalType, column.type, column.utc === true, text, bad);
    case 'TIMESTAMP_MILLIS':
    case 'TIMESTAMP_MICROS':
    case 'TIMESTAMP_NANOS':
      if (column.type === 'INT64')
        return timestampFromText(column.logicalType, column.utc === true, text, bad);
      break;
    case 'INTERVAL':
      if (column.type === 'FIXED_LEN_BYTE_ARRAY') return intervalFromText(text, bad);
      break;
    case 'INT8':
    case 'INT16':
    case 'UINT8':
    case 'UINT16':
    case 'UINT32':
    case 'UINT64': {
      const [low, high] = INTEGER_RANGES[column.logicalType];
      if (!INTEGER.test(text)) return bad(`an integer in [${low}, ${high}]`);
      const value = BigInt(text);
      if (value < low || value > high) return bad(`an integer in [${low}, ${high}]`);
      return column.type === 'INT64' ? BigInt.asIntN(64, value) : Number(BigInt.asIntN(32, value));
    }
  }
  return physicalFromText(column, text, bad);
}

/** A value read as its physical type alone. */
function physicalFromText(column: ParquetColumn, text: string, bad: (what: string) => never): ParquetValue {
  switch (column.type) {
    case 'BYTE_ARRAY':
      return text;
    case 'FIXED_LEN_BYTE_ARRAY': {
      const bytes = new TextEncoder().encode(text);
      if (column.length !== undefined && bytes.length !== column.length) return bad(`${column.length} bytes`);
      return bytes;
    }
    case 'BOOLEAN':
      return text === 'true' ? true : text === 'false' ? false : bad('true or false');
    case 'FLOAT':
    case 'DOUBLE':
      return floatFromText(text) ?? bad('a number');
    case 'INT32': {
      if (!INTEGER.test(text)) return bad('an integer');
      const value = Number(text);
      return value >= -(2 ** 31) && value < 2 ** 31 ? value : bad('an integer in [-2^31, 2^31 - 1]');
    }
    case 'INT64': {
      if (!INTEGER.test(text)) return bad('an integer');
      const value = BigInt(text);
      return value >= -(2n ** 63n) && value < 2n ** 63n ? value : bad('an integer in [-2^63, 2^63 - 1]');
    }
    default:
      return bad('no values (INT96 is not hashed)');
  }
}

/** A decimal number, NaN or an infinity (`inf`, `Infinity`, either sign, any case), or undefined. */
function floatFromText(text: string): number | undefined {
  const special = /^([+-]?)(nan|inf|infinity)$/i.exec(text);
  if (special !== null) {
    if (special[2]!.toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  const match = DECIMAL.exec(text);
  if (match === null || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  return Number(text);
}

/** The 16 bytes of a UUID in text, or undefined. */
function uuidBytes(text: string): Uint8Array | undefined {
  const match = UUID.exec(text);
  if (match === null || text.startsWith('{') !== text.endsWith('}')) return undefined;
  const hex = match.slice(1).join('');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** A DECIMAL(p, s) text as its unscaled integer in the column's physical type, exactly. */
function decimalValue(column: ParquetColumn, text: string, bad: (what: string) => never): ParquetValue {
  const scale = column.scale ?? 0;
  const precision = column.precision ?? 38;
  const takes = `a decimal number with at most ${scale} digits after the point and ${precision} in all`;
  const match = DECIMAL.exec(text);
  if (match === null || (match[2] === '' && (match[3] ?? '') === '')) return bad(takes);
  const fraction = match[3] ?? '';
  let digits = `${match[2]}${fraction}`.replace(/^0+(?=\d)/, '');
  let shift = Number(match[4] ?? 0) - fraction.length + scale;
  if (shift < 0) {
    // Only zeros may go: 12.50 at scale 1 is 125, 12.55 is not a value of the column.
    const dropped = digits.slice(Math.max(0, digits.length + shift));
    if (/[^0]/.test(dropped)) return bad(takes);
    digits = digits.slice(0, Math.max(0, digits.length + shift)) || '0';
    shift = 0;
  }
  if (digits.length + shift > precision + 1 && /[^0]/.test(digits)) return bad(takes);
  // Non-zero digits were bounded above (at most precision + 1 of them with their shift); zero needs no power of ten,
  // so an exponent such as 0e999999 costs nothing.
  const magnitude = /[^0]/.test(digits) ? BigInt(digits) * 10n ** BigInt(shift) : 0n;
  if (magnitude >= 10n ** BigInt(precision)) return bad(takes);
  const unscaled = match[1] === '-' ? -magnitude : magnitude;
  switch (column.type) {
    case 'INT32':
      return Number(unscaled);
    case 'INT64':
      return unscaled;
    case 'FIXED_LEN_BYTE_ARRAY':
      return twosComplement(unscaled, column.length ?? minimalBytes(unscaled));
    case 'BYTE_ARRAY':
      return twosComplement(unscaled, minimalBytes(unscaled));
    default:
      return bad('nothing: DECIMAL on this physical type is not a Parquet type');
  }
}

/** The fewest bytes that hold `value` in two's complement. */
function minimalBytes(value: bigint): number {
  let bytes = 1;
  while (value < -(2n ** BigInt(8 * bytes - 1)) || value >= 2n ** BigInt(8 * bytes - 1)) bytes++;
  return bytes;
}

/** `value` as `bytes` big-endian two's complement bytes. */
function twosComplement(value: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let rest = BigInt.asUintN(8 * bytes, value);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

/**
 * A number as IEEE 754 binary16, little-endian (FLOAT16 is a 2-byte FIXED_LEN_BYTE_ARRAY), rounded to nearest,
 * ties to even, as writers convert: overflow is an infinity, a NaN the quiet NaN 0x7e00.
 */
export function float16Bytes(value: number): Uint8Array {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const sign = (hi >>> 16) & 0x8000;
  const exponent = (hi >>> 20) & 0x7ff;
  let half: number;
  if (Number.isNaN(value)) half = 0x7e00;
  else if (exponent === 0x7ff) half = sign | 0x7c00;
  else {
    // The significand with its leading 1 as an integer of 53 bits, scaled to half's units at this exponent.
    const e = exponent - 1023;
    const mantissa = BigInt(hi & 0xfffff) * 2n ** 32n + BigInt(lo) + (exponent === 0 ? 0n : 2n ** 52n);
    // Half's value is m * 2^(q) with q = max(e, -14) - 10: shift the double's mantissa (2^(e - 52) units) to it.
    const q = Math.max(e, -14) - 10;
    const shift = BigInt(q - (e - 52) + (exponent === 0 ? -1 : 0));
    let m: bigint;
    if (shift <= 0n) m = mantissa << -shift;
    else {
      const unit = 1n << shift;
      m = mantissa >> shift;
      const rest = mantissa & (unit - 1n);
      if (rest * 2n > unit || (rest * 2n === unit && (m & 1n) === 1n)) m++;
    }
    let biased = Math.max(e, -14) + 15;
    if (m >= 2048n) {
      m >>= 1n;
      biased++;
    }
    if (biased >= 31) half = sign | 0x7c00;
    else if (m < 1024n) half = sign | Number(m);
    else half = sign | (biased << 10) | Number(m - 1024n);
  }
  return new Uint8Array([half & 0xff, half >>> 8]);
}
