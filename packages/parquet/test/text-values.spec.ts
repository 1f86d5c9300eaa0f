import { InvalidArgumentError } from '@bloomkit/core';
import { describe, expect, it } from 'vitest';
import { type ParquetColumn, valueFromText } from '../src/index.js';
import { float16Bytes } from '../src/text-values.js';

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

  it('reads logical types as the writer stored them: UUID, DECIMAL, unsigned, TIME, TIMESTAMP offsets, INTERVAL', () => {
    const of = (extra: Partial<ParquetColumn>): ParquetColumn => ({
      name: 'c',
      type: 'INT32',
      logicalType: undefined,
      ...extra,
    });
    const uuid = of({ type: 'FIXED_LEN_BYTE_ARRAY', logicalType: 'UUID', length: 16 });
    const bytes = [
      0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00,
    ];
    expect(valueFromText(uuid, '123e4567-e89b-12d3-a456-426614174000')).toEqual(new Uint8Array(bytes));
    expect(valueFromText(uuid, '{123E4567E89B12D3A456426614174000}')).toEqual(new Uint8Array(bytes));
    const dec9 = of({ logicalType: 'DECIMAL', scale: 2, precision: 9 });
    for (const [text, unscaled] of [
      ['12', 1200],
      ['12.00', 1200],
      ['12.5', 1250],
      ['-0.01', -1],
      ['1e3', 100000],
      ['0.10e1', 100],
      ['+.5', 50],
      ['9999999.99', 999999999],
      ['0e999999', 0],
      ['-0.000e-999999', 0],
    ] as const) {
      expect(valueFromText(dec9, text), text).toBe(unscaled);
    }
    expect(valueFromText(of({ type: 'INT64', logicalType: 'DECIMAL', scale: 4, precision: 18 }), '-50')).toBe(
      -500000n,
    );
    const fixed = of({
      type: 'FIXED_LEN_BYTE_ARRAY',
      logicalType: 'DECIMAL',
      scale: 0,
      precision: 30,
      length: 13,
    });
    expect(valueFromText(fixed, '-1')).toEqual(new Uint8Array(13).fill(0xff));
    expect(valueFromText(fixed, '258')).toEqual(new Uint8Array([...new Array(11).fill(0), 1, 2]));
    expect(
      valueFromText(of({ type: 'BYTE_ARRAY', logicalType: 'DECIMAL', scale: 0, precision: 10 }), '128'),
    ).toEqual(new Uint8Array([0x00, 0x80]));
    expect(valueFromText(of({ logicalType: 'UINT32' }), '4294967295')).toBe(-1);
    expect(valueFromText(of({ logicalType: 'UINT32' }), '2147483648')).toBe(-(2 ** 31));
    expect(valueFromText(of({ type: 'INT64', logicalType: 'UINT64' }), '18446744073709551615')).toBe(-1n);
    expect(valueFromText(of({ logicalType: 'UINT8' }), '255')).toBe(255);
    expect(valueFromText(of({ logicalType: 'INT8' }), '-128')).toBe(-128);
    const timeMicros = of({ type: 'INT64', logicalType: 'TIME_MICROS', utc: false });
    expect(valueFromText(timeMicros, '00:00:01.000003')).toBe(1000003n);
    expect(valueFromText(timeMicros, '1000003')).toBe(1000003n);
    expect(valueFromText(of({ logicalType: 'TIME_MILLIS', utc: false }), '23:59:59.999')).toBe(86399999);
    // A UTC-adjusted time takes its offset off, around midnight.
    const timeUtc = of({ type: 'INT64', logicalType: 'TIME_MICROS', utc: true });
    expect(valueFromText(timeUtc, '00:30:00+01')).toBe(84_600_000_000n);
    expect(valueFromText(timeUtc, '00:00:01.000003+00')).toBe(1000003n);
    const instant = of({ type: 'INT64', logicalType: 'TIMESTAMP_MICROS', utc: true });
    const local = of({ type: 'INT64', logicalType: 'TIMESTAMP_MICROS', utc: false });
    const midnight = BigInt(Date.UTC(2020, 0, 1)) * 1000n;
    expect(valueFromText(instant, '2020-01-01 00:00:01.000003+00')).toBe(midnight + 1000003n);
    expect(valueFromText(instant, '2020-01-01 02:00:00+02:00')).toBe(midnight);
    expect(valueFromText(instant, '2019-12-31T19:00:00-0500')).toBe(midnight);
    expect(valueFromText(local, '2020-01-01 00:00:00Z')).toBe(midnight);
    const interval = valueFromText(
      of({ type: 'FIXED_LEN_BYTE_ARRAY', logicalType: 'INTERVAL', length: 12 }),
      '1 year 2 months 3 days 04:05:06.789',
    ) as Uint8Array;
    const view = new DataView(interval.buffer);
    expect([view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true)]).toEqual([
      14, 3, 14_706_789,
    ]);
    expect(valueFromText(of({ type: 'DOUBLE' }), 'inf')).toBe(Infinity);
    expect(valueFromText(of({ type: 'DOUBLE' }), '-Infinity')).toBe(-Infinity);
    expect(valueFromText(of({ type: 'FLOAT' }), 'nan')).toBeNaN();
  });

  it('refuses what a logical type cannot hold exactly, naming it', () => {
    const of = (extra: Partial<ParquetColumn>): ParquetColumn => ({
      name: 'c',
      type: 'INT32',
      logicalType: undefined,
      ...extra,
    });
    const dec9 = of({ logicalType: 'DECIMAL', scale: 2, precision: 9 });
    for (const [c, text, message] of [
      [
        dec9,
        '12.555',
        /column c \(DECIMAL\(9, 2\)\) takes a decimal number with at most 2 digits after the point/,
      ],
      [dec9, '10000000', /DECIMAL\(9, 2\)/],
      [dec9, '1,5', /DECIMAL/],
      [dec9, '0x10', /DECIMAL/],
      [
        of({ type: 'FIXED_LEN_BYTE_ARRAY', logicalType: 'UUID', length: 16 }),
        'not-a-uuid',
        /column c \(UUID\) takes a UUID/,
      ],
      [
        of({ type: 'FIXED_LEN_BYTE_ARRAY', logicalType: 'UUID', length: 16 }),
        '{123e4567-e89b-12d3-a456-426614174000',
        /UUID/,
      ],
      [of({ logicalType: 'UINT32' }), '-1', /UINT32\) takes an integer in \[0, 4294967295\]/],
      [of({ logicalType: 'UINT32' }), '4294967296', /\[0, 4294967295\]/],
      [of({ logicalType: 'INT8' }), '128', /\[-128, 127\]/],
      [of({ type: 'DOUBLE' }), '0x1', /a number/],
      [of({ type: 'DOUBLE' }), '1_000', /a number/],
      [
        of({ type: 'INT64', logicalType: 'TIME_MICROS', utc: false }),
        '00:30:00+01',
        /a local time without a UTC offset/,
      ],
      [of({ type: 'INT64', logicalType: 'TIME_MICROS', utc: false }), '24:00:01', /a time HH:MM:SS/],
      [
        of({ type: 'INT64', logicalType: 'TIMESTAMP_MICROS', utc: false }),
        '2020-01-01 00:00:00+02',
        /a local timestamp/,
      ],
      [of({ type: 'INT64', logicalType: 'TIMESTAMP_MILLIS', utc: true }), '2020-01-01 00:00:00+25', /a time/],
      [of({ type: 'FIXED_LEN_BYTE_ARRAY', logicalType: 'INTERVAL', length: 12 }), '-1 days', /an interval/],
      [
        of({ type: 'FIXED_LEN_BYTE_ARRAY', logicalType: 'INTERVAL', length: 12 }),
        '00:00:00.0001',
        /an interval/,
      ],
      [of({ type: 'FIXED_LEN_BYTE_ARRAY', length: 4 }), 'abc', /takes 4 bytes/],
    ] as const) {
      expect(() => valueFromText(c, text), text).toThrow(InvalidArgumentError);
      expect(() => valueFromText(c, text), text).toThrow(message);
    }
  });

  it('FLOAT16: every binary16 value round-trips, and a value between two rounds to the nearest, ties to even', () => {
    const decode = (bits: number): number => {
      const sign = bits & 0x8000 ? -1 : 1;
      const exponent = (bits >> 10) & 0x1f;
      const fraction = bits & 0x3ff;
      if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : Number.NaN;
      if (exponent === 0) return sign * fraction * 2 ** -24;
      return sign * (1024 + fraction) * 2 ** (exponent - 25);
    };
    const bitsOf = (value: number) => {
      const [lo, hi] = float16Bytes(value);
      return lo! | (hi! << 8);
    };
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = decode(bits);
      if (Number.isNaN(value)) continue;
      expect(bitsOf(value), bits.toString(16)).toBe(bits);
      // Halfway to the next value up (same sign, finite): rounds to whichever of the two has an even last bit.
      const next = decode(bits + 1);
      if (
        (bits & 0x7fff) < 0x7bff &&
        !Number.isNaN(next) &&
        Math.sign(next) === Math.sign(value || 1 / value)
      ) {
        expect(bitsOf((value + next) / 2), `tie ${bits.toString(16)}`).toBe(bits % 2 === 0 ? bits : bits + 1);
      }
    }
    expect(bitsOf(Number.NaN)).toBe(0x7e00);
    expect(bitsOf(65520)).toBe(0x7c00);
    expect(bitsOf(65519.99)).toBe(0x7bff);
    expect(bitsOf(1e-9)).toBe(0);
    expect(bitsOf(-0)).toBe(0x8000);
  });
});
