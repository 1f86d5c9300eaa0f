import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ChecksumMismatchError, type FilterFact } from '@bloomkit/core';
import { EXIT } from '../errors.js';
import { inFile, readFilterBytes } from '../files.js';
import { type AnyFilter, decodeFilter, exceptionsOf, kindName } from '../filters.js';
import type { Interrupts } from '../interrupts.js';
import { binarySize, grouped } from '../units.js';
import { runParquet } from './parquet.js';

/** What `info` reports, field for field (`--json` prints this object). */
export interface FilterInfo {
  readonly file: string;
  readonly fileBytes: number;
  readonly kind: string;
  readonly formatVersion: number;
  readonly seed: number;
  /** m: bits (counters for the counting kind; for scalable, of all sub-filters). */
  readonly bits: number;
  /** k (for scalable, of the newest sub-filter). */
  readonly hashes: number;
  readonly counterBits?: number;
  readonly subFilters?: readonly { bits: number; hashes: number; capacity: number; fpr: number }[];
  /** The capacity and target rate it was sized for; null when built from explicit bits and hashes. */
  readonly capacity: number | null;
  readonly targetFpr: number | null;
  /** Keys recorded as added (adds that returned true). */
  readonly count: number;
  readonly fillRatio: number;
  /** Distinct keys estimated from the fill ratio. */
  readonly estimatedCount: number | null;
  /** The false-positive rate now, from the fill ratio. */
  readonly currentFpr: number;
  /**
   * What the kind says of its own shape and state (its `facts()`: a window's slices and reach, a cuckoo filter's
   * fingerprint bits, an exceptions file's nested kind and exceptions…), by each fact's key; printed from the
   * facts' labels, so no kind needs a branch here.
   */
  readonly facts?: Readonly<Record<string, number | string | boolean | null>>;
  /** "ok", or what is wrong with the stored CRC-32C. */
  readonly checksum: string;
}

/** `info FILE [--json]`: exit 0, or 2 when the checksum does not match (the rest is still printed). */
export async function runInfo(file: string, json: boolean, interrupts: Interrupts): Promise<number> {
  // A Parquet file: its split-block filters, as `bloomkit parquet FILE` lists them.
  if (await isParquetFile(file))
    return runParquet(file, { column: undefined, keys: [], from: [], nul: false, json }, interrupts);
  const { header, bytes } = await readFilterBytes(file, interrupts);
  let checksum = 'ok';
  let filter: AnyFilter;
  try {
    try {
      filter = decodeFilter(header, bytes);
    } catch (error) {
      // A checksum that does not match is reported with everything else the file says.
      if (!(error instanceof ChecksumMismatchError)) throw error;
      checksum = error.message.replace(/^[A-Za-z.]+: /, '');
      filter = decodeFilter(header, bytes, false);
    }
  } catch (error) {
    throw inFile(file, error);
  }
  const estimate = filter.estimatedCount();
  const facts = factsOf(filter);
  const info: FilterInfo = {
    file,
    fileBytes: header.byteLength,
    kind: kindName(filter),
    formatVersion: header.version,
    seed: filter.seed,
    bits: filter.bits,
    hashes: filter.hashes,
    ...shapeFacts(filter),
    ...(facts.length === 0 ? {} : { facts: Object.fromEntries(facts.map((fact) => [fact.key, fact.value])) }),
    capacity: filter.capacity ?? null,
    targetFpr: filter.fpr ?? null,
    count: filter.count,
    fillRatio: filter.fillRatio(),
    estimatedCount: Number.isFinite(estimate) ? Math.round(estimate) : null,
    currentFpr: filter.expectedFpr(),
    checksum,
  };
  process.stdout.write(json ? `${JSON.stringify(info, null, 2)}\n` : table(info, facts));
  return checksum === 'ok' ? EXIT.ok : EXIT.error;
}

/**
 * True for a regular file that begins with Parquet's magic "PAR1". Anything else is not opened here: a FIFO opened
 * and closed to look at it would take its writer's bytes with it (a writer that wrote all and left while this look
 * held it open leaves nothing for the read after, which then waits forever), so a stream is opened once, by
 * {@link readFilterBytes}.
 */
async function isParquetFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) return false;
      const head = new Uint8Array(4);
      const { bytesRead } = await handle.read(head, 0, 4, 0);
      return bytesRead === 4 && new TextDecoder().decode(head) === 'PAR1';
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/**
 * What some filters have beyond the shared API, read by shape rather than by kind (of the nested filter, for an
 * exceptions file): a counter width, and sub-filters.
 */
function shapeFacts(outer: AnyFilter): Pick<FilterInfo, 'counterBits' | 'subFilters'> {
  const filter = (exceptionsOf(outer)?.filter ?? outer) as AnyFilter;
  const facts: { counterBits?: number; subFilters?: NonNullable<FilterInfo['subFilters']> } = {};
  if ('counterBits' in filter && typeof filter.counterBits === 'number')
    facts.counterBits = filter.counterBits;
  if ('subFilters' in filter && typeof filter.subFilters === 'function') {
    facts.subFilters = filter.subFilters().map((sub) => ({
      bits: sub.bits,
      hashes: sub.hashes,
      capacity: sub.capacity!,
      fpr: sub.fpr!,
    }));
  }
  return facts;
}

/** The facts a filter's kind states of itself (its `facts()`), or none. */
function factsOf(filter: AnyFilter): FilterFact[] {
  const own = (filter as { facts?: () => FilterFact[] }).facts;
  return typeof own === 'function' ? own.call(filter) : [];
}

function table(info: FilterInfo, facts: readonly FilterFact[]): string {
  const rows: [string, string][] = [
    ['file', `${info.file} (${binarySize(info.fileBytes)}, ${grouped(info.fileBytes)} bytes)`],
    ['kind', `${info.kind} (format version ${info.formatVersion})`],
    ['bits (m)', `${grouped(info.bits)}${info.counterBits === undefined ? '' : ' counters'}`],
    ['hashes (k)', String(info.hashes)],
  ];
  for (const fact of facts) rows.push([fact.label, fact.text]);
  for (const [i, sub] of (info.subFilters ?? []).entries()) {
    rows.push([
      `  sub-filter #${i}`,
      `m ${grouped(sub.bits)}, k ${sub.hashes}, ${grouped(sub.capacity)} keys at ${sub.fpr.toPrecision(3)}`,
    ]);
  }
  rows.push(['seed', String(info.seed)]);
  rows.push([
    'sized for',
    info.capacity === null ? '(explicit m and k)' : `${grouped(info.capacity)} keys at ${info.targetFpr}`,
  ]);
  rows.push(['keys added', grouped(info.count)]);
  rows.push(['fill ratio', `${(100 * info.fillRatio).toFixed(2)}%`]);
  rows.push([
    'estimated keys',
    info.estimatedCount === null ? 'n/a (every bit set)' : grouped(info.estimatedCount),
  ]);
  rows.push(['false-positive rate now', info.currentFpr.toPrecision(3)]);
  rows.push(['checksum', info.checksum]);
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}\n`).join('');
}
