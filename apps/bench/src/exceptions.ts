import { fileURLToPath } from 'node:url';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { StandardBloomFilter } from '@bloomkit/standard';
import { runInChild } from './child-report.js';
import { interleaved, ownLoop, type Probe, SLICE } from './interleave.js';
import { asLines, urlKeys } from './keys.js';
import { median } from './timing.js';

/**
 * `--exceptions`: the cost of an exception list on lookups. One standard filter of 10^6 URL keys at p = 0.01, read
 * three ways in one process, interleaved (round-robin over slices of the keys, the order rotating per slice, so JIT
 * state and cache warmth favour none; each reader's loop compiled on its own): the plain filter, an ExceptionFilter over it with no exceptions, and one over
 * a copy with 10^5 exceptions (false positives found by probing 10^7 other keys). Probes: 10^6 absent keys and
 * 10^6 present keys, flat strings.
 */
export interface ExceptionsResult {
  readonly n: number;
  readonly fpr: number;
  readonly exceptions: number;
  readonly reps: number;
  /** Per repetition, lookups per second of each reader, absent and present keys. */
  readonly measurements: readonly ExceptionsRun[];
}

export interface ExceptionsRun {
  readonly reader: Reader;
  readonly absentPerSecond: number;
  readonly presentPerSecond: number;
}

type Reader = 'plain' | 'exceptions-0' | 'exceptions-1e5';
const READERS: readonly Reader[] = ['plain', 'exceptions-0', 'exceptions-1e5'];
const LABELS: Record<Reader, string> = {
  plain: 'StandardBloomFilter',
  'exceptions-0': 'ExceptionFilter, 0 exceptions',
  'exceptions-1e5': 'ExceptionFilter, 10^5 exceptions',
};

const N = 1_000_000;
const FPR = 0.01;
const EXCEPTIONS = 100_000;

const CHILD = fileURLToPath(new URL('./exceptions-child.js', import.meta.url));

/**
 * {@link runExceptions} in a fresh process (exceptions-child.js): in the bench's own process, with its other
 * modules and their heap beside it, every reader measured about a third of its rate in a process of its own.
 */
export function runExceptionsInChild(
  reps: number,
  progress: (line: string) => void,
): Promise<ExceptionsResult> {
  return runInChild<ExceptionsResult>('--exceptions', CHILD, [String(reps)], progress);
}

export function runExceptions(reps: number, progress: (line: string) => void): ExceptionsResult {
  const plain = StandardBloomFilter.create(N, FPR);
  plain.addAll(asLines(urlKeys(N, 'present')));
  const empty = ExceptionFilter.wrap(plain);
  // Exceptions do not change the filter they wrap: all three readers read the same bits.
  const listed = ExceptionFilter.wrap(plain);
  for (let seed = 100; listed.exceptionCount < EXCEPTIONS; seed++) {
    for (const key of asLines(urlKeys(1_000_000, 'absent', seed))) {
      if (listed.exceptionCount < EXCEPTIONS) listed.addException(key);
    }
    progress(`exceptions: ${listed.exceptionCount} false positives listed`);
  }
  const absent = asLines(urlKeys(N, 'absent'));
  const present = asLines(urlKeys(N, 'present'));
  // Each reader's loop is compiled once, for every repetition (interleave.ts).
  const loop = (filter: { has(key: string): boolean }) =>
    ownLoop('for (let i = start; i < end; i++) if (filter.has(keys[i])) hits++;', { filter });
  const probes: Record<Reader, Probe> = {
    plain: loop(plain),
    'exceptions-0': loop(empty),
    'exceptions-1e5': loop(listed),
  };
  const measurements: ExceptionsRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const absentMs = interleaved(absent, probes);
    const presentMs = interleaved(present, probes);
    for (const reader of READERS) {
      measurements.push({
        reader,
        absentPerSecond: (absent.length / absentMs[reader]) * 1000,
        presentPerSecond: (present.length / presentMs[reader]) * 1000,
      });
    }
    progress(`exceptions: repetition ${rep + 1} of ${reps}`);
  }
  return { n: N, fpr: FPR, exceptions: listed.exceptionCount, reps, measurements };
}

export function exceptionsMarkdown(result: ExceptionsResult): string {
  const stat = (reader: Reader, field: 'absentPerSecond' | 'presentPerSecond') =>
    result.measurements.filter((m) => m.reader === reader).map((m) => m[field]);
  const ratios = (reader: Reader, field: 'absentPerSecond' | 'presentPerSecond') => {
    const mine = stat(reader, field);
    const base = stat('plain', field);
    return mine.map((value, i) => value / base[i]!);
  };
  const m = (ops: number) => `${(ops / 1e6).toFixed(2)} M/s`;
  const span = (values: number[]) =>
    `${median(values).toFixed(3)}× (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`;
  const slowdown = 1 - median(ratios('exceptions-1e5', 'absentPerSecond'));
  const rows = READERS.map(
    (reader) =>
      `| ${LABELS[reader]} | ${m(median(stat(reader, 'absentPerSecond')))} | ${reader === 'plain' ? '1' : span(ratios(reader, 'absentPerSecond'))} | ${m(median(stat(reader, 'presentPerSecond')))} | ${reader === 'plain' ? '1' : span(ratios(reader, 'presentPerSecond'))} |`,
  );
  return [
    `One standard filter of ${result.n.toLocaleString('en-US')} URL keys at p = ${result.fpr}; ${result.exceptions.toLocaleString('en-US')} exceptions (false positives of 10^7 other keys). The three readers run interleaved in one process, round-robin over slices of ${SLICE.toLocaleString('en-US')} keys; ${result.reps} repetitions, medians with min–max of the per-repetition ratios to the plain filter.`,
    '',
    `| goal | result | numbers |`,
    `| --- | --- | --- |`,
    `| \`has\` of absent keys with 10^5 exceptions at most 5% slower than the plain filter | ${slowdown <= 0.05 ? 'met' : '**short**'} | ${span(ratios('exceptions-1e5', 'absentPerSecond'))} of the plain filter's rate |`,
    '',
    '| reader | absent keys | ratio | present keys | ratio |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
