import { readFileSync } from 'node:fs';
import { FormatError, InvalidArgumentError } from '@bloomkit/core';
import { type AsyncBuffer, parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openParquetFilters } from '../src/index.js';
import { duckdbFile } from './support/duckdb-files.js';

/** A file as a reader of byte ranges that records each read. */
function recording(bytes: Uint8Array): { file: AsyncBuffer; reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    reads,
    file: {
      byteLength: bytes.length,
      async slice(start, end = bytes.length) {
        reads.push([start, end]);
        return bytes.slice(start, end).buffer;
      },
    },
  };
}

describe('openParquetFilters', () => {
  let dispose: (() => void) | undefined;
  let bytes: Uint8Array;

  beforeAll(async () => {
    const made = await duckdbFile(50_000, 25_000);
    dispose = made.dispose;
    bytes = new Uint8Array(readFileSync(made.path));
  });
  afterAll(() => dispose?.());

  it('reads the footer, then each filter with one range read of bloom_filter_length bytes, once', async () => {
    const { file, reads } = recording(bytes);
    const filters = await openParquetFilters(file);
    const footerReads = reads.length;
    expect(footerReads).toBeLessThanOrEqual(2);
    const chunk = filters.chunks.find((c) => c.rowGroup === 1 && c.column === 's')!;
    const answers = await filters.mayContain('s', 'https://example.com/page/7/é');
    expect(answers.map((a) => a.answer)).toEqual(['maybe', 'maybe']);
    expect(reads.length).toBe(footerReads + 2);
    expect(reads).toContainEqual([chunk.offset, chunk.offset + chunk.length!]);
    await filters.mayContain('s', 'absent');
    expect(reads.length).toBe(footerReads + 2);
    expect((await filters.mayContain('n', 99_999)).map((a) => a.answer)).toEqual(['absent', 'absent']);
    expect(await filters.filter(0, 'nope')).toBeUndefined();
  });

  it('reads a filter whose length the footer leaves out in two reads, its header checked against the file', async () => {
    const metadata = parquetMetadata(bytes.buffer as ArrayBuffer);
    for (const group of metadata.row_groups)
      for (const column of group.columns) delete column.meta_data!.bloom_filter_length;
    const { file, reads } = recording(bytes);
    const filters = await openParquetFilters(file, { metadata });
    expect(reads.length).toBe(0);
    expect((await filters.mayContain('b', -1_000_000_000_000n)).map((a) => a.answer)).toEqual([
      'maybe',
      'maybe',
    ]);
    expect(reads.length).toBe(4);
    const withLength = await openParquetFilters(bytes);
    expect((await filters.filter(1, 'd'))!.equals((await withLength.filter(1, 'd'))!)).toBe(true);
  });

  it('refuses what is not a Parquet file, offsets and lengths past the file, and a bad header, with a FormatError', async () => {
    await expect(openParquetFilters(new Uint8Array(100))).rejects.toThrow(FormatError);
    await expect(openParquetFilters(bytes.subarray(0, bytes.length - 100))).rejects.toThrow(FormatError);
    const past = parquetMetadata(bytes.buffer as ArrayBuffer);
    past.row_groups[0]!.columns[0]!.meta_data!.bloom_filter_offset = BigInt(bytes.length + 10);
    await expect(openParquetFilters(bytes, { metadata: past })).rejects.toThrow(
      /bloom_filter_offset .* outside the file/,
    );
    const long = parquetMetadata(bytes.buffer as ArrayBuffer);
    long.row_groups[0]!.columns[0]!.meta_data!.bloom_filter_length = bytes.length;
    await expect(openParquetFilters(bytes, { metadata: long })).rejects.toThrow(
      /bloom_filter_length .* runs past the file/,
    );
    const empty = parquetMetadata(bytes.buffer as ArrayBuffer);
    empty.row_groups[0]!.columns[0]!.meta_data!.bloom_filter_length = 0;
    await expect(openParquetFilters(bytes, { metadata: empty })).rejects.toThrow(
      /bloom_filter_length is 0; a filter's header and bitset take at least 1 byte/,
    );
    // A filter offset that points at data: its "header" is refused when it is read, not before.
    const wrong = parquetMetadata(bytes.buffer as ArrayBuffer);
    const meta = wrong.row_groups[0]!.columns[0]!.meta_data!;
    meta.bloom_filter_offset = BigInt(bytes.length - 40);
    delete meta.bloom_filter_length;
    const filters = await openParquetFilters(bytes, { metadata: wrong });
    await expect(filters.mayContain('s', 'x')).rejects.toThrow(FormatError);
  });

  it('refuses an unknown column and a value of the wrong type with typed errors', async () => {
    const filters = await openParquetFilters(bytes);
    await expect(filters.mayContain('nope', 'x')).rejects.toThrow(InvalidArgumentError);
    await expect(filters.mayContain('nope', 'x')).rejects.toThrow(
      /no column "nope" \(it has s, n, b, d, dt, ts\)/,
    );
    await expect(filters.mayContain('n', 'x')).rejects.toThrow(/column of type INT32/);
    await expect(openParquetFilters('file.parquet' as never)).rejects.toThrow(InvalidArgumentError);
  });
});
