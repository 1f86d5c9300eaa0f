import { FormatError } from '@bloomkit/core';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { openParquetFilters, SplitBlockBloomFilter } from '../src/index.js';

// Footers written to hurt: every row group's filter naming the same bytes, ranges that overlap, and hundreds of
// thousands of row groups. A reader keeps one read and one filter per distinct range, never more bytes than the file
// has, and finds a row group's filter without a scan.

/** A file of `head` filler bytes, then `filter`'s Parquet bytes; an AsyncBuffer counting what is read. */
function fileWith(filter: Uint8Array, head = 4) {
  const bytes = new Uint8Array(head + filter.length + 8);
  bytes.set(filter, head);
  const reads: [number, number][] = [];
  const source: AsyncBuffer = {
    byteLength: bytes.length,
    slice(start, end = bytes.length) {
      reads.push([start, end]);
      return bytes.slice(start, end).buffer;
    },
  };
  return { source, reads, offset: head, length: filter.length };
}

/** A footer of `groups` row groups of one BYTE_ARRAY column `s`, row group g's filter at `place(g)`. */
function footer(groups: number, place: (group: number) => { offset: number; length?: number }): FileMetaData {
  return {
    version: 1,
    schema: [
      { name: 'root', num_children: 1 },
      { name: 's', type: 'BYTE_ARRAY' },
    ],
    num_rows: BigInt(groups),
    row_groups: Array.from({ length: groups }, (_, g) => ({
      columns: [
        {
          file_offset: 0n,
          meta_data: {
            type: 'BYTE_ARRAY',
            encodings: [],
            path_in_schema: ['s'],
            codec: 'UNCOMPRESSED',
            num_values: 1n,
            total_uncompressed_size: 1n,
            total_compressed_size: 1n,
            data_page_offset: 0n,
            bloom_filter_offset: BigInt(place(g).offset),
            ...(place(g).length === undefined ? {} : { bloom_filter_length: place(g).length }),
          },
        },
      ],
      total_byte_size: 1n,
      num_rows: 1n,
    })),
    metadata_length: 0,
  } as unknown as FileMetaData;
}

describe('openParquetFilters on hostile footers', () => {
  const filter = SplitBlockBloomFilter.create(100_000, 0.01);
  filter.add('present');
  const parquetBytes = filter.toParquet();

  it('400 row groups naming the same filter: one read, one filter, every row group answers', async () => {
    for (const withLength of [true, false]) {
      const { source, reads, offset, length } = fileWith(parquetBytes);
      const metadata = footer(400, () => ({ offset, ...(withLength ? { length } : {}) }));
      const filters = await openParquetFilters(source, { metadata });
      const all = await Promise.all(Array.from({ length: 400 }, (_, g) => filters.filter(g, 's')));
      expect(new Set(all).size, `length given: ${withLength}`).toBe(1);
      // One range (two reads, header then bitset, when the footer gives no length).
      expect(reads.length).toBe(withLength ? 1 : 2);
      expect((await filters.mayContain('s', 'present')).every((row) => row.answer === 'maybe')).toBe(true);
    }
  });

  it('filters whose ranges overlap are a FormatError once they add up to more than the file, never a copy each', async () => {
    const { source, reads, offset, length } = fileWith(parquetBytes);
    // Row group g's filter starts g bytes later: each range is another, and they overlap.
    const metadata = footer(50, (g) => ({ offset: offset + g, length: length - g }));
    const filters = await openParquetFilters(source, { metadata });
    const outcome = await Promise.all(Array.from({ length: 50 }, (_, g) => filters.filter(g, 's'))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(FormatError);
    expect((outcome as Error).message).toMatch(
      /byte ranges add up to more than the file's \d+ bytes: they overlap/,
    );
    const bytesRead = reads.reduce((sum, [start, end]) => sum + (end - start), 0);
    expect(bytesRead).toBeLessThanOrEqual(source.byteLength);
  });

  it('200,000 row groups: each row group finds its filter, and one distinct filter is read once', async () => {
    const { source, reads, offset, length } = fileWith(parquetBytes);
    const metadata = footer(200_000, () => ({ offset, length }));
    const filters = await openParquetFilters(source, { metadata });
    expect(filters.chunks).toHaveLength(200_000);
    const answers = await filters.mayContain('s', 'present');
    expect(answers).toHaveLength(200_000);
    expect(answers.every((row) => row.answer === 'maybe')).toBe(true);
    expect(reads).toHaveLength(1);
  });
});
