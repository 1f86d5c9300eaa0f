import { type BloomFilter, ChecksumMismatchError, type FilterFact, type Key } from '@bloomkit/core';
import { deserializeAny } from '@bloomkit/filters';
import { SplitBlockBloomFilter, valueFromText } from '@bloomkit/parquet';
import { bytes, grouped, rate } from './numbers.js';
import { type Row, row } from './rows.js';

/**
 * What a bloomkit file holds: its header and the filter of its kind (`deserializeAny`, the checksum verified), its
 * fill and the rate it answers with now; and the answers it gives for keys typed in.
 */

/**
 * A file read: its facts, and its filter to ask. A file whose checksum does not match is read all the same, as
 * `bloomkit info` reads it (every fact the header and the params state, the checksum row saying it does not match),
 * with `damaged`, the library's error: its filter is not asked.
 */
export interface Inspected {
  readonly rows: readonly Row[];
  readonly filter: BloomFilter;
  readonly damaged?: string | undefined;
}

const HASHES: Record<number, string> = { 1: 'MurmurHash3 x86_128', 2: 'XXH64' };

/** Reads `file` (the bytes of a bloomkit file); a file that is not one is the library's FormatError. */
export function inspect(name: string, file: Uint8Array): Inspected {
  let damaged: string | undefined;
  let decoded: ReturnType<typeof deserializeAny>;
  try {
    decoded = deserializeAny(file);
  } catch (error) {
    if (!(error instanceof ChecksumMismatchError)) throw error;
    damaged = error.message;
    decoded = deserializeAny(file, { verifyChecksum: false });
  }
  const { filter, Class, header } = decoded;
  const estimate = filter.estimatedCount();
  const rows: Row[] = [
    row('file', 'file', name),
    row('kind', 'kind', Class.kind.name, `${Class.kind.name} (id ${header.kind}, ${Class.kind.className})`),
    row('version', 'format version', header.version),
    row(
      'hash',
      'hash',
      header.hashAlgorithm,
      HASHES[header.hashAlgorithm] ?? `algorithm ${header.hashAlgorithm}`,
    ),
    row('seed', 'seed', header.seed, `0x${header.seed.toString(16).padStart(8, '0')}`),
    row(
      'byteLength',
      'file size',
      header.byteLength,
      `${bytes(header.byteLength)} (params ${header.paramsLength} B, payload ${grouped(header.payloadLength)} B)`,
    ),
    damaged === undefined
      ? row('checksum', 'CRC-32C', 'verified', 'verified')
      : row('checksum', 'CRC-32C', 'mismatch', 'does not match: the file is damaged'),
    row('bits', 'm (bits or counters)', filter.bits, grouped(filter.bits)),
    row('hashes', 'k', filter.hashes),
    row('count', 'keys added (count)', filter.count, grouped(filter.count)),
    ...(filter.capacity === undefined
      ? []
      : [row('capacity', 'capacity', filter.capacity, grouped(filter.capacity))]),
    ...(filter.fpr === undefined ? [] : [row('targetFpr', 'target rate', filter.fpr, rate(filter.fpr))]),
    row('fill', 'fill', filter.fillRatio(), `${(100 * filter.fillRatio()).toFixed(2)}%`),
    row(
      'estimatedCount',
      'estimated keys (from the fill)',
      Number.isFinite(estimate) ? Math.round(estimate) : 'every bit set',
      Number.isFinite(estimate) ? grouped(Math.round(estimate)) : 'n/a (every bit set)',
    ),
    row('currentFpr', 'false-positive rate now', filter.expectedFpr(), rate(filter.expectedFpr())),
    ...factRows(filter),
  ];
  return { rows, filter, damaged };
}

/** What the filter's kind states of its own shape (its `facts()`), a row each: no branch per kind here. */
function factRows(filter: BloomFilter): Row[] {
  const facts = (filter as { facts?: () => FilterFact[] }).facts;
  if (typeof facts !== 'function') return [];
  return facts
    .call(filter)
    .map((fact) =>
      row(fact.key, fact.label, typeof fact.value === 'number' ? fact.value : String(fact.value), fact.text),
    );
}

/** The answer for each line of `text` (blank lines skipped): a Parquet kind reads it as a value of its column. */
export function ask(filter: BloomFilter, text: string): { key: string; present: boolean }[] {
  const lines = text.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    const key: Key | ReturnType<typeof valueFromText> =
      filter instanceof SplitBlockBloomFilter
        ? valueFromText({ name: 'value', type: filter.type, logicalType: undefined }, line)
        : line;
    return { key: line, present: (filter as { has(key: unknown): boolean }).has(key) };
  });
}
