import { InvalidArgumentError } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { type ParquetColumn, valueFromText } from '../src/index.js';

const column = (type: ParquetColumn['type'], logicalType?: ParquetColumn['logicalType']): ParquetColumn => ({
  name: 'c',
  type,
  logicalType,
});

describe('valueFromText', () => {
  it('reads each type as the column stores it', () => {
    expect(valueFromText(column('BYTE_ARRAY', 'STRING'), ' a b ')).toBe(' a b ');
    expect(valueFromText(column('INT32'), '-2147483648')).toBe(-(2 ** 31));
    expect(valueFromText(column('INT64'), '-9223372036854775808')).toBe(-(2n ** 63n));
    expect(valueFromText(column('DOUBLE'), '-0')).toBe(-0);
    expect(valueFromText(column('FLOAT'), 'NaN')).toBeNaN();
    expect(valueFromText(column('BOOLEAN'), 'false')).toBe(false);
    expect(valueFromText(column('INT32', 'DATE'), '1970-01-02')).toBe(1);
    expect(valueFromText(column('INT32', 'DATE'), '1969-12-31')).toBe(-1);
    expect(valueFromText(column('INT32', 'DATE'), '19000')).toBe(19000);
    expect(valueFromText(column('INT64', 'TIMESTAMP_MICROS'), '1970-01-01 00:00:01.5')).toBe(1_500_000n);
    expect(valueFromText(column('INT64', 'TIMESTAMP_MILLIS'), '2024-05-01T12:00:00Z')).toBe(
      BigInt(Date.UTC(2024, 4, 1, 12)),
    );
    expect(valueFromText(column('INT64', 'TIMESTAMP_NANOS'), '1970-01-01 00:00:00.000000001')).toBe(1n);
    expect(valueFromText(column('INT64', 'TIMESTAMP_MICROS'), '1969-12-31 23:59:59')).toBe(-1_000_000n);
  });

  it('refuses text a column cannot hold, naming the column and what it takes', () => {
    for (const [c, text, message] of [
      [column('INT32'), '2147483648', /takes an integer in \[-2\^31, 2\^31 - 1\]/],
      [column('INT32'), '1.5', /column c \(INT32\) takes an integer, got "1.5"/],
      [column('INT64'), '9223372036854775808', /\[-2\^63, 2\^63 - 1\]/],
      [column('DOUBLE'), '', /a number/],
      [column('DOUBLE'), 'x', /a number/],
      [column('BOOLEAN'), 'yes', /true or false/],
      [column('INT32', 'DATE'), '2023-02-29', /column c \(DATE\) takes a date/],
      [column('INT64', 'TIMESTAMP_MILLIS'), '2024-05-01 12:00:00.0005', /at most 3 fraction digits/],
      [column('INT64', 'TIMESTAMP_MICROS'), '2024-05-01 25:00', /a time/],
      [column('INT96'), '1', /INT96/],
    ] as const) {
      expect(() => valueFromText(c, text), text).toThrow(InvalidArgumentError);
      expect(() => valueFromText(c, text), text).toThrow(message);
    }
  });
});
