import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Key } from '@bloomkit/core';
import {
  openParquetFilters,
  type ParquetColumn,
  type ParquetFilters,
  type ParquetValue,
  valueFromText,
} from '@bloomkit/parquet';
import { CliError, EXIT } from '../errors.js';
import { type Interrupts, untilStopped } from '../interrupts.js';
import { type KeySource, visitKeys } from '../keys.js';
import { Output } from '../output.js';
import { binarySize, grouped } from '../units.js';

/** What `parquet` asks: a file, and a column with values (else it lists the file's filters). */
export interface ParquetOptions extends KeySource {
  readonly column: string | undefined;
  readonly json: boolean;
}

const UTF8 = new TextDecoder('utf-8', { fatal: false });

/**
 * `parquet FILE --column C [VALUES… | --from F]`: for each value, the row groups whose filter says it may be there
 * (or that have no filter), one line each: the value, a tab, the row groups (`-` for none). Exits 0 when some value
 * may be in some row group, 1 when none may (grep's statuses), 2 on an error. Without `--column`: the file's
 * filters, one row each (row group, column, type, size, fill, estimated distinct values, rate).
 */
export async function runParquet(
  file: string,
  options: ParquetOptions,
  interrupts: Interrupts,
): Promise<number> {
  return withParquetFile(file, async (filters) => {
    if (options.column === undefined) {
      if (options.keys.length > 0 || options.from.length > 0)
        throw new CliError('parquet: give --column C with values');
      await listFilters(filters, options.json);
      return EXIT.ok;
    }
    const column = filters.columns.find((c) => c.name === options.column);
    if (column === undefined) {
      throw new CliError(
        `parquet: ${file} has no column '${options.column}' (it has ${filters.columns.map((c) => c.name).join(', ')})`,
      );
    }
    return probeValues(filters, column, options, interrupts);
  });
}

/** Opens a Parquet file for range reads (the footer, then each filter), or a CliError naming it. */
async function withParquetFile(
  file: string,
  use: (filters: ParquetFilters) => Promise<number>,
): Promise<number> {
  // Non-blocking, so a FIFO planted at the path is refused at once instead of waiting for a writer.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      throw new CliError(`${file}: cannot open (${error.code ?? error.message})`);
    },
  );
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new CliError(`${file}: not a regular file (a Parquet file is read at offsets)`);
    const filters = await openParquetFilters({
      byteLength: stat.size,
      async slice(start: number, end: number = stat.size): Promise<ArrayBuffer> {
        const bytes = new Uint8Array(end - start);
        let done = 0;
        while (done < bytes.length) {
          const { bytesRead } = await handle.read(bytes, done, bytes.length - done, start + done);
          if (bytesRead === 0) throw new CliError(`${file}: the file shrank while it was read`);
          done += bytesRead;
        }
        return bytes.buffer;
      },
    }).catch((error: unknown) => {
      throw error instanceof Error ? new CliError(`${file}: ${error.message}`) : error;
    });
    return await use(filters);
  } finally {
    await handle.close();
  }
}

async function probeValues(
  filters: ParquetFilters,
  column: ParquetColumn,
  source: ParquetOptions,
  interrupts: Interrupts,
): Promise<number> {
  // Every row group's filter of the column, read first (one range read per distinct filter): then values stream
  // through. A stop signal ends the wait.
  const groups = await untilStopped(
    Promise.all(Array.from({ length: filters.rowGroups }, (_, group) => filters.filter(group, column.name))),
    interrupts,
    `parquet: reading the filters of ${column.name}`,
  );
  const out = new Output();
  let any = false;
  let refused = 0;
  const answer = (text: string, value: ParquetValue): void => {
    const answers = groups.map((filter) =>
      filter === undefined ? 'no-filter' : filter.has(value) ? 'maybe' : 'absent',
    );
    const may = answers.flatMap((a, group) => (a === 'absent' ? [] : [group]));
    if (may.length > 0) any = true;
    out.text(
      source.json
        ? `${JSON.stringify({ value: text, rowGroups: may, answers })}\n`
        : `${text}\t${may.length === 0 ? '-' : may.join(' ')}\n`,
    );
  };
  const rawBytes = takesRawBytes(column);
  // A value the column's type cannot hold is said on stderr, and the others are still answered (exit 2 at the end).
  const readValue = (key: Key, text: string): ParquetValue | undefined => {
    if (rawBytes) return key;
    try {
      return valueFromText(column, text);
    } catch (error) {
      refused++;
      out.flush();
      process.stderr.write(
        `bloomkit: parquet: ${(error as Error).message.replace(/^valueFromText: /, '')}\n`,
      );
      return undefined;
    }
  };
  const visit = (key: Key, text: string) => {
    const value = readValue(key, text);
    if (value !== undefined) answer(text, value);
  };
  await visitKeys(
    source,
    {
      argument: (key, text) => visit(key, text),
      bytes(chunk, start, end) {
        const bytes = chunk.subarray(start, end);
        visit(bytes, UTF8.decode(bytes));
      },
    },
    interrupts,
  );
  out.flush();
  if (interrupts.exitStatus !== undefined) return interrupts.exitStatus;
  return refused > 0 ? EXIT.error : any ? EXIT.ok : EXIT.absent;
}

/**
 * Whether a column's values are the bytes of the line as given: text, JSON, ENUM and BSON columns and plain byte
 * arrays (a line need not be UTF-8). A FIXED_LEN_BYTE_ARRAY of another length than the line's is read as text, to
 * be refused by its length; UUID, DECIMAL, FLOAT16 and INTERVAL are read as the text of their value.
 */
function takesRawBytes(column: ParquetColumn): boolean {
  if (column.type === 'BYTE_ARRAY') return column.logicalType !== 'DECIMAL';
  return (
    column.type === 'FIXED_LEN_BYTE_ARRAY' && column.logicalType === undefined && column.length === undefined
  );
}

/** One row per column chunk with a filter: what `bloomkit info` shows of a bloomkit file. */
async function listFilters(filters: ParquetFilters, json: boolean): Promise<void> {
  const rows = [];
  for (const chunk of filters.chunks) {
    const filter = (await filters.filter(chunk.rowGroup, chunk.column))!;
    rows.push({
      rowGroup: chunk.rowGroup,
      column: chunk.column,
      type: chunk.type,
      bytes: filter.blocks * 32,
      fillRatio: filter.fillRatio(),
      estimatedDistinct: Math.round(filter.estimatedCount()),
      currentFpr: filter.expectedFpr(),
    });
  }
  const out = new Output();
  if (json) {
    out.text(
      `${JSON.stringify({ rowGroups: filters.rowGroups, columns: filters.columns, filters: rows }, null, 2)}\n`,
    );
  } else {
    out.text(`${filters.rowGroups} row groups, ${rows.length} column chunks with a split-block filter\n`);
    out.text('row group\tcolumn\ttype\tbitset\tfill\testimated distinct\tfalse-positive rate now\n');
    for (const row of rows) {
      out.text(
        `${row.rowGroup}\t${row.column}\t${row.type}\t${binarySize(row.bytes)}\t${(100 * row.fillRatio).toFixed(2)}%\t${grouped(row.estimatedDistinct)}\t${row.currentFpr.toPrecision(3)}\n`,
      );
    }
  }
  out.flush();
}
