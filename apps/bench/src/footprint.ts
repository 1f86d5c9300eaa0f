import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createFilter } from '@bloomkit/filters';
import { BloomFilter } from 'bloomfilter';
import { runInChild } from './child-report.js';
import { interleaved, ownLoop, type Probe, SLICE } from './interleave.js';
import { asLines, urlKeys } from './keys.js';
import { median } from './timing.js';

/**
 * `--footprint`: what a counting filter's memory costs its single-key speed on this machine. A counting filter
 * (kind 3, 4-bit counters) touches the same k positions as a standard filter of the same m, spread over 4× the
 * bytes: 4.8 MB at 10^6 keys and p = 0.01 against 1.2 MB of bits, which fit a 2 MiB L2 where the counters do not.
 * Five readers run interleaved in one process (interleave.ts) on the same flat URL keys: `bloomfilter` (sized by its
 * `withTargetError`, as in the main comparison), bloomkit standard, bloomkit standard with m × 4 bits and the same
 * k (the counting filter's footprint and access pattern with the cheapest mark there is, one OR: what any filter of
 * that size and layout can reach here, counting or not), bloomkit blocked with m × 4 bits (one cache line a key at
 * those bytes: the memory half of what counters blocked the same way, a kind of their own, would cost) and bloomkit
 * counting. Each repetition fills fresh filters (`add` of n present keys, slice by slice in step), then probes n
 * present and n absent keys; at 10^6 keys and at 2·10^5, where the counters (0.96 MB) fit the L2 of the machines
 * measured.
 */
export interface FootprintResult {
  readonly fpr: number;
  readonly reps: number;
  /** This machine's caches as the kernel lists them (Linux), e.g. "L1d 48K, L1i 32K, L2 2048K, L3 …". */
  readonly caches: string;
  readonly sizes: readonly FootprintSize[];
  /** Per repetition, size, reader and operation: operations per second. */
  readonly measurements: readonly FootprintRun[];
}

export interface FootprintSize {
  readonly n: number;
  /** Bytes of bits or counters of each reader's filter. */
  readonly bytes: Record<Reader, number>;
}

export interface FootprintRun {
  readonly n: number;
  readonly reader: Reader;
  readonly op: Op;
  readonly perSecond: number;
}

export type Reader = 'bloomfilter' | 'standard' | 'standard-4m' | 'blocked-4m' | 'counting';
export type Op = 'add' | 'has hit' | 'has miss';
const READERS: readonly Reader[] = ['bloomfilter', 'standard', 'standard-4m', 'blocked-4m', 'counting'];
const OPS: readonly Op[] = ['add', 'has hit', 'has miss'];
const LABELS: Record<Reader, string> = {
  bloomfilter: 'bloomfilter',
  standard: 'bloomkit standard',
  'standard-4m': "bloomkit standard, m × 4 bits (the counting filter's bytes)",
  'blocked-4m': 'bloomkit blocked, m × 4 bits (one cache line a key)',
  counting: 'bloomkit counting (4-bit)',
};
/** The goal asked of the counting filter's single-key add and has, as a ratio to `bloomfilter`. */
const COUNTING_GOAL = 0.9;
const FPR = 0.01;
const SIZES = [1_000_000, 200_000];
const CHILD = fileURLToPath(new URL('./footprint-child.js', import.meta.url));

/** {@link runFootprint} in a fresh process (footprint-child.js), as every other measurement. */
export function runFootprintInChild(
  reps: number,
  progress: (line: string) => void,
): Promise<FootprintResult> {
  return runInChild<FootprintResult>('--footprint', CHILD, [String(reps)], progress);
}

interface Filters {
  /** Each reader's loop per operation, compiled for its filter alone. */
  readonly add: Record<Reader, Probe>;
  readonly has: Record<Reader, Probe>;
  readonly bytes: Record<Reader, number>;
}

/** Fresh, empty filters for n keys, each reader with a loop of its own per operation. */
function makeFilters(n: number): Filters {
  const bloomfilter = BloomFilter.withTargetError(n, FPR);
  const standard = createFilter('standard', { capacity: n, fpr: FPR });
  const counting = createFilter('counting', { capacity: n, fpr: FPR, counterBits: 4 });
  const wide = createFilter('standard', { bits: counting.bits * 4, hashes: counting.hashes });
  const wideBlocked = createFilter('blocked', { bits: counting.bits * 4, hashes: counting.hashes });
  const add = (filter: unknown) =>
    ownLoop('for (let i = start; i < end; i++) if (filter.add(keys[i])) hits++;', { filter });
  const has = (filter: unknown) =>
    ownLoop('for (let i = start; i < end; i++) if (filter.has(keys[i])) hits++;', { filter });
  return {
    add: {
      // bloomfilter's add returns nothing: its loop counts no hits.
      bloomfilter: ownLoop('for (let i = start; i < end; i++) filter.add(keys[i]);', { filter: bloomfilter }),
      standard: add(standard),
      'standard-4m': add(wide),
      'blocked-4m': add(wideBlocked),
      counting: add(counting),
    },
    has: {
      bloomfilter: ownLoop('for (let i = start; i < end; i++) if (filter.test(keys[i])) hits++;', {
        filter: bloomfilter,
      }),
      standard: has(standard),
      'standard-4m': has(wide),
      'blocked-4m': has(wideBlocked),
      counting: has(counting),
    },
    bytes: {
      bloomfilter: Math.ceil(bloomfilter.m / 8),
      standard: Math.ceil(standard.bits / 8),
      'standard-4m': Math.ceil(wide.bits / 8),
      'blocked-4m': Math.ceil(wideBlocked.bits / 8),
      counting: Math.ceil((counting.bits * 4) / 8),
    },
  };
}

/** The measurement ({@link FootprintResult}) at each of `keyCounts` (default 10^6 and 2·10^5 keys). */
export function runFootprint(
  reps: number,
  progress: (line: string) => void,
  keyCounts: readonly number[] = SIZES,
): FootprintResult {
  const measurements: FootprintRun[] = [];
  const sizes: FootprintSize[] = [];
  for (const n of keyCounts) {
    const present = asLines(urlKeys(n, 'present'));
    const absent = asLines(urlKeys(n, 'absent'));
    for (let rep = 0; rep < reps; rep++) {
      const filters = makeFilters(n);
      if (rep === 0) sizes.push({ n, bytes: filters.bytes });
      const runs: [Op, readonly string[], Record<Reader, Probe>][] = [
        ['add', present, filters.add],
        ['has hit', present, filters.has],
        ['has miss', absent, filters.has],
      ];
      for (const [op, keys, probes] of runs) {
        const ms = interleaved(keys, probes);
        for (const reader of READERS) {
          measurements.push({ n, reader, op, perSecond: (keys.length / ms[reader]) * 1000 });
        }
      }
      progress(`footprint: ${n} keys, repetition ${rep + 1} of ${reps}`);
    }
  }
  return { fpr: FPR, reps, caches: cacheSizes(), sizes, measurements };
}

/** The caches of CPU 0 from Linux's sysfs ("L1d 48K, …, L2 2048K, …"); "unknown" where they are not listed. */
export function cacheSizes(dir = '/sys/devices/system/cpu/cpu0/cache'): string {
  try {
    const caches = readdirSync(dir)
      .filter((name) => /^index\d+$/.test(name))
      .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))
      .map((name) => {
        const read = (field: string) => readFileSync(`${dir}/${name}/${field}`, 'utf8').trim();
        const type = read('type');
        const suffix = type === 'Data' ? 'd' : type === 'Instruction' ? 'i' : '';
        return `L${read('level')}${suffix} ${read('size')}`;
      });
    return caches.length === 0 ? 'unknown' : caches.join(', ');
  } catch {
    return 'unknown';
  }
}

export function footprintMarkdown(result: FootprintResult): string {
  const rates = (n: number, reader: Reader, op: Op) =>
    result.measurements
      .filter((m) => m.n === n && m.reader === reader && m.op === op)
      .map((m) => m.perSecond);
  const ratios = (n: number, reader: Reader, op: Op) => {
    const base = rates(n, 'bloomfilter', op);
    return rates(n, reader, op).map((value, i) => value / base[i]!);
  };
  const span = (values: number[]) =>
    `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  const goalRows = result.sizes.map(({ n }) => {
    const counting = OPS.map((op) => ratios(n, 'counting', op));
    const met = counting.every((values) => median(values) >= COUNTING_GOAL);
    const numbers = OPS.map((op, i) => `${op} ${span(counting[i]!)}`).join(', ');
    const at = (reader: Reader) => OPS.map((op) => `${op} ${span(ratios(n, reader, op))}`).join(', ');
    return `| ${n.toLocaleString('en-US')} keys: counting add and has ≥ ${COUNTING_GOAL}× bloomfilter | ${met ? 'met' : '**short**'} | ${numbers}; at the counting filter's bytes, standard: ${at('standard-4m')}; blocked: ${at('blocked-4m')} |`;
  });
  const tables = result.sizes.flatMap(({ n, bytes }) => [
    '',
    `${n.toLocaleString('en-US')} keys, p = ${result.fpr}: operations per second, median (ratio to bloomfilter, min–max)`,
    '',
    `| reader | bytes | ${OPS.join(' | ')} |`,
    `| --- | --- | ${OPS.map(() => '---').join(' | ')} |`,
    ...READERS.map(
      (reader) =>
        `| ${LABELS[reader]} | ${mb(bytes[reader])} | ${OPS.map((op) => `${(median(rates(n, reader, op)) / 1e6).toFixed(2)} M/s (${reader === 'bloomfilter' ? '1' : span(ratios(n, reader, op))})`).join(' | ')} |`,
    ),
  ]);
  return [
    `This machine's caches (CPU 0): ${result.caches}. The readers run interleaved in one process, round-robin over slices of ${SLICE.toLocaleString('en-US')} flat URL keys; ${result.reps} repetitions, each on fresh filters; medians with min–max of the per-repetition ratios to bloomfilter. The standard filter with m × 4 bits marks and probes the counting filter's bytes the way the counting filter does, with one OR where the counter takes a read, a compare and an add: where it falls short of a ratio, so does every filter of the counting filter's size and layout on this machine. The blocked filter with m × 4 bits touches one cache line of those bytes a key: where it falls short, so would counters blocked the same way.`,
    '',
    '| goal | result | numbers |',
    '| --- | --- | --- |',
    ...goalRows,
    ...tables,
  ].join('\n');
}
