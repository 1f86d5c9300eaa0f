import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `pnpm bench --dedup`: `bloomkit dedup` against `awk '!seen[$0]++'` and `sort -u` on the same file of URL lines
 * (30% of them repeats of earlier lines), each command a fresh process reading the file on stdin and writing a
 * file, one at a time. Lines per second are wall-clock; peak memory is the process's VmHWM, sampled every 5 ms
 * from /proc (the peak is monotonic, so the last sample is within 5 ms of the true peak). bloomkit's output is
 * checked against awk's: it must be awk's lines in awk's order with some left out, and each left-out line is a
 * false positive, counted against the target rate.
 */

export interface DedupContender {
  readonly id: string;
  readonly label: string;
  /** argv; stdin is the input file, stdout the output file. */
  readonly argv: readonly string[];
  /** The false-positive target, for bloomkit. */
  readonly fpr?: number;
}

export interface DedupRun {
  readonly id: string;
  readonly seconds: number;
  readonly peakBytes: number;
  readonly linesOut: number;
}

export interface DedupResult {
  readonly lines: number;
  readonly distinct: number;
  readonly inputBytes: number;
  readonly awkVersion: string;
  readonly runs: readonly DedupRun[];
  /** For each bloomkit contender: lines awk printed that it dropped (false positives); -1 if its output was not a subsequence of awk's. */
  readonly falsePositives: Readonly<Record<string, number>>;
}

const BIN = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url));

/** What the fixed-size dedup must reach, in multiples of awk's lines/s. */
const DEDUP_GOAL = 12;

export function dedupContenders(lines: number): DedupContender[] {
  return [
    { id: 'awk', label: "awk '!seen[$0]++'", argv: ['awk', '!seen[$0]++'] },
    { id: 'sort-u', label: 'sort -u', argv: ['sort', '-u'] },
    {
      id: 'bloomkit',
      label: `bloomkit dedup --fixed --capacity ${lines} --fpr 0.001`,
      argv: [process.execPath, BIN, 'dedup', '--fixed', '--capacity', String(lines), '--fpr', '0.001'],
      fpr: 0.001,
    },
    {
      id: 'bloomkit-scalable',
      label: 'bloomkit dedup (no capacity: scalable, --fpr 0.0001)',
      argv: [process.execPath, BIN, 'dedup'],
      fpr: 0.0001,
    },
  ];
}

/** Writes `lines` URL lines, a share `repeats` of them repeats of earlier lines; returns the distinct count. */
export function writeInput(file: string, lines: number, repeats: number): number {
  let state = 12345;
  const next = () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  const url = (i: number) =>
    `https://h${i % 997}.example.com/${(Math.imul(i, 2654435761) >>> 0).toString(36)}/item/${i}`;
  const fd = openSync(file, 'w');
  let buffer = '';
  let distinct = 0;
  for (let j = 0; j < lines; j++) {
    const repeat = distinct > 0 && next() / 2 ** 32 < repeats;
    buffer += `${repeat ? url(next() % distinct) : url(distinct++)}\n`;
    if (buffer.length > 1 << 20) {
      writeSync(fd, buffer);
      buffer = '';
    }
  }
  writeSync(fd, buffer);
  closeSync(fd);
  return distinct;
}

/** Runs one command with stdin from `input` and stdout to `output`; wall time and peak memory. */
async function timeCommand(
  argv: readonly string[],
  input: string,
  output: string,
): Promise<{ seconds: number; peakBytes: number }> {
  const inFd = openSync(input, 'r');
  const outFd = openSync(output, 'w');
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: [inFd, outFd, 'inherit'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  let peak = 0;
  const sample = () => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match !== null) peak = Math.max(peak, Number(match[1]) * 1024);
    } catch {
      // Exited between samples.
    }
  };
  const timer = setInterval(sample, 5);
  const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  closeSync(inFd);
  closeSync(outFd);
  if (status !== 0) throw new Error(`${argv.join(' ')} exited with ${status}`);
  return { seconds, peakBytes: peak };
}

function countLines(file: string): number {
  const bytes = readFileSync(file);
  let n = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) n++;
  return n;
}

/**
 * Lines of `truth` missing from `candidate`, when `candidate` is `truth` with lines left out (same order); -1
 * when it is not (a line out of order, or one awk did not print).
 */
export function missingLines(truth: Buffer, candidate: Buffer): number {
  let i = 0;
  let j = 0;
  let missing = 0;
  while (j < candidate.length) {
    if (i >= truth.length) return -1;
    const endT = truth.indexOf(10, i);
    const endC = candidate.indexOf(10, j);
    if (truth.compare(candidate, j, endC + 1, i, endT + 1) === 0) j = endC + 1;
    else missing++;
    i = endT + 1;
  }
  for (; i < truth.length; i = truth.indexOf(10, i) + 1) missing++;
  return missing;
}

export async function runDedup(
  lines: number,
  repetitions: number,
  progress: (line: string) => void,
): Promise<DedupResult> {
  const dir = join(tmpdir(), `bloomkit-dedup-bench-${process.pid}`);
  const input = join(dir, 'input.txt');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    progress(`writing ${lines} lines`);
    const distinct = writeInput(input, lines, 0.3);
    const contenders = dedupContenders(lines);
    const runs: DedupRun[] = [];
    for (let rep = 0; rep < repetitions; rep++) {
      for (const contender of contenders) {
        progress(`[${rep + 1}/${repetitions}] ${contender.label}`);
        const output = join(dir, `${contender.id}.out`);
        const { seconds, peakBytes } = await timeCommand(contender.argv, input, output);
        runs.push({ id: contender.id, seconds, peakBytes, linesOut: countLines(output) });
      }
    }
    const awk = readFileSync(join(dir, 'awk.out'));
    const falsePositives: Record<string, number> = {};
    for (const contender of contenders.filter((c) => c.fpr !== undefined)) {
      falsePositives[contender.id] = missingLines(awk, readFileSync(join(dir, `${contender.id}.out`)));
    }
    return {
      lines,
      distinct,
      inputBytes: statSync(input).size,
      awkVersion: awkVersion(),
      runs,
      falsePositives,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function awkVersion(): string {
  const run = spawnSync('awk', ['-W', 'version'], { encoding: 'utf8' });
  return (run.stdout || run.stderr || 'awk').split('\n')[0]!.trim();
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The report: per command, median lines/s and peak memory and their ratios to awk; the goals of the CLI issue. */
export function dedupMarkdown(result: DedupResult): string {
  const contenders = dedupContenders(result.lines);
  const stats = contenders.map((c) => {
    const runs = result.runs.filter((r) => r.id === c.id);
    return {
      contender: c,
      rate: median(runs.map((r) => result.lines / r.seconds)),
      peak: median(runs.map((r) => r.peakBytes)),
      out: runs[0]?.linesOut ?? 0,
      reps: runs.length,
    };
  });
  const awk = stats.find((s) => s.contender.id === 'awk')!;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  const rows = stats.map((s) => {
    const fp = result.falsePositives[s.contender.id];
    const output =
      fp === undefined
        ? s.contender.id === 'sort-u'
          ? `${s.out.toLocaleString('en-US')} lines, sorted`
          : `${s.out.toLocaleString('en-US')} lines`
        : fp < 0
          ? 'NOT a subsequence of awk output'
          : `awk's lines in awk's order, ${fp} dropped (false positives: ${(fp / result.distinct).toExponential(1)} of distinct lines; target ${s.contender.fpr})`;
    return `| \`${s.contender.label}\` | ${(s.rate / 1e6).toFixed(2)} M | ${(s.rate / awk.rate).toFixed(2)}× | ${mb(s.peak)} | ${(s.peak / awk.peak).toFixed(2)}× | ${output} |`;
  });
  const bk = stats.find((s) => s.contender.id === 'bloomkit')!;
  const fp = result.falsePositives.bloomkit ?? -1;
  const goals = [
    `| \`bloomkit dedup\` ≥ ${DEDUP_GOAL}× awk's lines/s | ${bk.rate / awk.rate >= DEDUP_GOAL ? 'met' : '**short**'} | ${(bk.rate / awk.rate).toFixed(2)}× |`,
    `| peak memory ≤ 1/10 of awk's | ${awk.peak / bk.peak >= 10 ? 'met' : '**short**'} | 1/${(awk.peak / bk.peak).toFixed(1)} (${mb(bk.peak)} vs ${mb(awk.peak)}) |`,
    `| output = awk's except false positives, within the target rate | ${fp >= 0 && fp <= result.distinct * (bk.contender.fpr ?? 0) ? 'met' : '**short**'} | ${fp} dropped of ${result.distinct.toLocaleString('en-US')} distinct (at most ${Math.round(result.distinct * (bk.contender.fpr ?? 0))} at the target rate) |`,
  ];
  return [
    `${result.lines.toLocaleString('en-US')} URL lines (${mb(result.inputBytes)}, 30% repeats, ${result.distinct.toLocaleString('en-US')} distinct), on stdin from a file, output to a file; ${awk.reps} repetitions, medians; ${result.awkVersion}; \`LC_ALL=C\`.`,
    '',
    '| goal | result | numbers |',
    '| --- | --- | --- |',
    ...goals,
    '',
    '| command | lines/s | vs awk | peak memory | vs awk | output |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
