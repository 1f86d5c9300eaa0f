import { InvalidArgumentError } from '@bloomkit/core';
import type { ParquetColumn } from './parquet-file.js';
import type { ParquetValue } from './physical-type.js';

const INTEGER = /^[+-]?\d+$/;
/** YYYY-MM-DD, then optionally [T or space]HH:MM[:SS[.fraction]] and an optional Z. */
const DATE_TIME = /^(-?\d{4,6})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?Z?$/;
const UNIT_DIGITS = { TIMESTAMP_MILLIS: 3, TIMESTAMP_MICROS: 6, TIMESTAMP_NANOS: 9 } as const;

/**
 * A value of `column` written as text, as a shell or a query string has it: text and bytes columns take the text
 * itself; INT32 and INT64 a decimal integer; a DATE column also `YYYY-MM-DD` (days since 1970-01-01); a TIMESTAMP
 * column also `YYYY-MM-DD[ HH:MM[:SS[.fraction]]]` as the stored wall-clock time (in the column's unit); FLOAT and
 * DOUBLE a number (`NaN`, `Infinity`, `-0` included); BOOLEAN `true` or `false`. Anything else is an
 * InvalidArgumentError naming the column and what it takes.
 */
export function valueFromText(column: ParquetColumn, text: string): ParquetValue {
  const bad = (what: string): never => {
    throw new InvalidArgumentError(
      `valueFromText: column ${column.name} (${column.logicalType ?? column.type}) takes ${what}, got "${text}"`,
    );
  };
  switch (column.type) {
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      return text;
    case 'BOOLEAN':
      return text === 'true' ? true : text === 'false' ? false : bad('true or false');
    case 'FLOAT':
    case 'DOUBLE': {
      const value = Number(text);
      return text.trim() !== '' && (!Number.isNaN(value) || text === 'NaN') ? value : bad('a number');
    }
    case 'INT32': {
      if (column.logicalType === 'DATE') {
        const match = DATE_TIME.exec(text);
        if (match !== null && match[4] === undefined) return daysOf(match) ?? bad('a date YYYY-MM-DD');
      }
      if (!INTEGER.test(text))
        return bad(column.logicalType === 'DATE' ? 'a date YYYY-MM-DD or days' : 'an integer');
      const value = Number(text);
      return value >= -(2 ** 31) && value < 2 ** 31 ? value : bad('an integer in [-2^31, 2^31 - 1]');
    }
    case 'INT64': {
      const unit =
        column.logicalType !== undefined && column.logicalType in UNIT_DIGITS
          ? column.logicalType
          : undefined;
      if (unit !== undefined && !INTEGER.test(text)) {
        const match = DATE_TIME.exec(text);
        const days = match === null ? undefined : daysOf(match);
        if (match === null || days === undefined)
          return bad('a time YYYY-MM-DD HH:MM:SS[.fraction] or units');
        const digits = UNIT_DIGITS[unit as keyof typeof UNIT_DIGITS];
        const seconds =
          BigInt(days) * 86_400n +
          BigInt(Number(match[4] ?? 0) * 3600 + Number(match[5] ?? 0) * 60 + Number(match[6] ?? 0));
        const fraction = (match[7] ?? '').padEnd(9, '0');
        if (fraction.slice(digits).replace(/0/g, '') !== '') return bad(`at most ${digits} fraction digits`);
        return seconds * 10n ** BigInt(digits) + BigInt(fraction.slice(0, digits) || '0');
      }
      if (!INTEGER.test(text)) return bad('an integer');
      const value = BigInt(text);
      return value >= -(2n ** 63n) && value < 2n ** 63n ? value : bad('an integer in [-2^63, 2^63 - 1]');
    }
    default:
      return bad('no values (INT96 is not hashed)');
  }
}

/** Days since 1970-01-01 of a matched date, or undefined when the month or day is out of range. */
function daysOf(match: RegExpExecArray): number | undefined {
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  if (Number(match[4] ?? 0) > 23 || Number(match[5] ?? 0) > 59 || Number(match[6] ?? 0) > 59)
    return undefined;
  return Math.floor(date.getTime() / 86_400_000);
}
