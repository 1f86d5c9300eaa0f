import { FormatError } from '@bloomkit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readParquetBloomHeader, SplitBlockBloomFilter } from '../src/index.js';
import { encodeParquetBloomHeader } from '../src/parquet-header.js';

const RUNS = Number(process.env.BLOOMKIT_FUZZ_RUNS ?? 2000);

/** A compact-protocol i32 field header and zigzag varint. */
function i32Field(id: number, value: number): number[] {
  const out = [(id << 4) | 5];
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  while (zigzag >= 0x80) {
    out.push((zigzag % 0x80) | 0x80);
    zigzag = Math.floor(zigzag / 0x80);
  }
  out.push(zigzag);
  return out;
}
const UNION = [0x1c, 0x1c, 0, 0];

describe('Parquet BloomFilterHeader', () => {
  it('is what parquet-java, arrow-rs and DuckDB write: 15 <numBytes> 1c 1c 00 00 ×3 00', () => {
    expect(Buffer.from(encodeParquetBloomHeader(4096)).toString('hex')).toBe(
      '1580401c1c00001c1c00001c1c000000',
    );
    expect(readParquetBloomHeader(encodeParquetBloomHeader(4096), 0, 'x', 16 + 4096)).toEqual({
      numBytes: 4096,
      headerLength: 16,
    });
  });

  it('refuses each way a header can be wrong, naming the field', () => {
    const bitset = new Uint8Array(64);
    const cases: [number[], RegExp][] = [
      [
        [...i32Field(1, 48), ...UNION, ...UNION, ...UNION, 0],
        /numBytes must be a power of two in \[32, 134217728\], got 48/,
      ],
      [[...i32Field(1, 2 ** 31 - 1), ...UNION, ...UNION, ...UNION, 0], /numBytes must be a power of two/],
      [[...i32Field(1, -64), ...UNION, ...UNION, ...UNION, 0], /got -64/],
      [[...i32Field(1, 2 ** 28), ...UNION, ...UNION, ...UNION, 0], /got 268435456/],
      [
        [...i32Field(1, 128), ...UNION, ...UNION, ...UNION, 0],
        /numBytes is 128, but only 64 bytes follow the header/,
      ],
      [
        [...i32Field(1, 64), 0x1c, 0x2c, 0, 0, ...UNION, ...UNION, 0],
        /algorithm has member 2 .*knows only 1, BLOCK/,
      ],
      [[...i32Field(1, 64), ...UNION, 0x1c, 0x2c, 0, 0, ...UNION, 0], /hash has member 2 .*XXHASH/],
      [
        [...i32Field(1, 64), ...UNION, ...UNION, 0x1c, 0x2c, 0, 0, 0],
        /compression has member 2 .*UNCOMPRESSED/,
      ],
      [[...i32Field(1, 64), ...UNION, ...UNION, 0], /no compression \(field 4\)/],
      [[...UNION, 0], /field 1 \(numBytes\) has Thrift type 12/],
      [[0x2c, 0x1c, 0, 0, ...UNION, ...UNION, 0], /the header has no numBytes \(field 1\)/],
      [[...i32Field(1, 64), ...i32Field(0, 64)], /varint|numBytes appears twice|field/],
      [[0x15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], /varint runs past 5 bytes/],
      [[0x1d], /Thrift type 13|unknown Thrift type 13/],
      [
        [...i32Field(1, 64), 0x1c, 0x1c, 0, 0x1c, 0, 0, 0],
        /algorithm must set one member, it sets 2|member 2/,
      ],
      [[...i32Field(1, 64), 0x15, 0x80], /field 2 \(algorithm\) has Thrift type 5/],
      [[0x59, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0c], /collection of .* elements is longer than the bytes left/],
      [[0x5c, ...Array(40).fill(0x1c)], /nest deeper than 16|truncated/],
    ];
    for (const [header, message] of cases) {
      const bytes = Uint8Array.from([...header, ...bitset]);
      expect(() => readParquetBloomHeader(bytes), message.source).toThrow(message);
      expect(() => SplitBlockBloomFilter.fromParquet(bytes)).toThrow(FormatError);
    }
    for (const truncated of [[0x15, 0x80], [0x15], [], [...i32Field(1, 64), 0x1c, 0x1c]]) {
      expect(() => readParquetBloomHeader(Uint8Array.from(truncated))).toThrow(/truncated/);
    }
  });

  it('skips unknown fields, as Thrift readers do', () => {
    // Field 5 (a binary), then field 6 (a list of 3 i32), before the four known fields, and an unknown field in BLOCK.
    const header = [0x58, 3, 0x61, 0x62, 0x63, 0x19, 0x35, 2, 4, 6, 0xfc, 0x02 /* id 1 long form */];
    const bytes = Uint8Array.from([
      ...header.slice(0, 10),
      ...[0x05, 0x02, ...[0x80, 0x01]], // long-form field header: type i32, id zigzag(1) = 2, numBytes 64 (zigzag 128)
      0x1c,
      0x1c,
      0x15,
      0x02,
      0,
      0,
      ...UNION,
      ...UNION,
      0,
      ...new Uint8Array(64),
    ]);
    expect(readParquetBloomHeader(bytes).numBytes).toBe(64);
  });

  it('fuzzed headers: a FormatError or an exact read, never past the input and never allocating from it', () => {
    const good = [...encodeParquetBloomHeader(64), ...new Uint8Array(64)];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(good.length + 4), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        fc.nat(good.length + 8),
        (edits, cut) => {
          const bytes = Uint8Array.from(good);
          for (const [at, value] of edits) if (at < bytes.length) bytes[at] = value;
          const input = bytes.subarray(0, Math.min(bytes.length, cut));
          try {
            const { numBytes, headerLength } = readParquetBloomHeader(input);
            expect(headerLength + numBytes).toBeLessThanOrEqual(input.length);
          } catch (error) {
            expect(error).toBeInstanceOf(FormatError);
          }
        },
      ),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          readParquetBloomHeader(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(FormatError);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
