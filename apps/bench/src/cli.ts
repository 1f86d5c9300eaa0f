import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bitsPerKeySpec, fprSpec, renderSvg, throughputSpec } from './charts.js';
import { CONTENDERS } from './contenders.js';
import { dedupMarkdown, runDedup } from './dedup.js';
import { exceptionsMarkdown, runExceptionsInChild } from './exceptions.js';
import { footprintMarkdown, runFootprintInChild } from './footprint.js';
import { runFuseFromHashes } from './fuse-hashes.js';
import { checkGoals, goalsMarkdown } from './goals.js';
import type { Measurement } from './job.js';
import { liveFiltersMarkdown, runLiveFiltersInChild } from './live-filters.js';
import { MachineLoad } from './machine-load.js';
import { parquetMarkdown, runParquetInChild } from './parquet.js';
import { jobs, makePlan, type Plan } from './plan.js';
import { redisMarkdown, runRedis } from './redis.js';
import { redisHoldMarkdown, runRedisHold } from './redis-hold.js';
import { aggregate, markdownTables, type Row } from './report.js';
import { runAll } from './runner.js';
import { runScalableMemory, scalableMemoryMarkdown } from './scalable-memory.js';
import { runScale, scaleMarkdown } from './scale.js';

const usage = () => `Usage: pnpm bench [options]

  (no option)        quick mode: the headline goals at 10^6 and 10^5 URL keys, 5 repetitions, about 3 minutes
  --full             every contender, URL/cons/binary keys, 10^5 to 10^7 keys, p = 0.01 and 0.001
  --redis            bloomkit's Redis filters against SETBIT and Lua recipes on a redis-server it starts
  --redis-hold       how long the largest function call each budget accepts holds that server (goal: 100 ms)
  --dedup [N]        bloomkit dedup against awk '!seen[$0]++' and sort -u on N URL lines (default 10^7)
  --scale N          one standard filter for N keys (e.g. 1e9: 1.2 GB of bits, past 2^32)
  --exceptions       has of a filter with 0 and 10^5 exceptions against the plain filter, interleaved
  --footprint        counting's add and has against its memory: bloomfilter, standard, standard and blocked at the
                     counting filter's bytes, and counting, interleaved at 10^6 and 2·10^5 URL keys, with the caches
  --parquet          Parquet split-block filters against hyparquet's bloom check, interleaved (10^6 URL and INT64 values)
  --scalable-memory  a scalable filter's bits over an ideal filter's for N = 10^4…3·10^6, per schedule (computed)
  --live-filters [N] N filters of 300 KB live in one process (default 30,000: about 9 GB), standard and blocked:
                     create times as they pile up, and memory given back once they are collected
  --reps N           repetitions (default 5; medians and min–max ratios are reported)
  --jobs N           measurements side by side (default 1; more is faster and noisier, and is labelled)
  --sizes a,b        key counts instead of the plan's
  --only id,id       only these contenders (ids: ${CONTENDERS.map((c) => c.id).join(', ')})
  --keys a,b         only these key types: url, url-cons, binary
  --fpr P            only workloads at this target rate (and the rate of --scale, default 0.01)
  --out DIR          where to write (default apps/bench/results/latest/, or results/partial/ for a run narrowed
                     by --only, --sizes, --reps, --keys, --fpr or --jobs: neither is committed)
  --publish          write to apps/bench/results/ instead, the committed results the READMEs quote (a whole
                     run only: not with --out or a narrowing option)
  --from FILE        re-render the tables and charts of a saved run without measuring
  --help             this text
`;

/**
 * `pnpm bench` (quick), `pnpm bench --full`, `pnpm bench --scale 1e9`; see {@link usage}.
 */
interface Options {
  help: boolean;
  /** --only, --sizes, --reps, --keys, --fpr or --jobs narrowed the plan: results go to results/partial/ unless --out. */
  narrowed: boolean;
  /** Write to results/ itself, the committed results (see {@link usage}). */
  publish: boolean;
  full: boolean;
  scale: number | undefined;
  dedup: number | undefined;
  redis: boolean;
  redisHold: boolean;
  exceptions: boolean;
  footprint: boolean;
  parquet: boolean;
  scalableMemory: boolean;
  liveFilters: number | undefined;
  fpr: number | undefined;
  keys: string[] | undefined;
  reps: number;
  sizes: number[] | undefined;
  only: string[] | undefined;
  out: string;
  jobs: number | undefined;
  from: string | undefined;
}

/** The options of a run with no flags. */
function defaultOptions(): Options {
  return {
    help: false,
    narrowed: false,
    publish: false,
    full: false,
    scale: undefined,
    dedup: undefined,
    redis: false,
    redisHold: false,
    exceptions: false,
    footprint: false,
    parquet: false,
    scalableMemory: false,
    liveFilters: undefined,
    fpr: undefined,
    keys: undefined,
    reps: 5,
    sizes: undefined,
    only: undefined,
    out: '',
    jobs: undefined,
    from: undefined,
  };
}

/** The command line's options, each checked (an Error names the flag and what it takes). */
export function parseArgs(argv: readonly string[]): Options {
  const options = readFlags(argv);
  checkOptions(options);
  if (options.out === '') {
    const dir = options.publish
      ? '../results/'
      : options.narrowed
        ? '../results/partial/'
        : '../results/latest/';
    options.out = fileURLToPath(new URL(dir, import.meta.url));
  }
  return options;
}

/** The flags read into options, unchecked but for a missing value or an unknown flag. */
function readFlags(argv: readonly string[]): Options {
  const options = defaultOptions();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--help' || arg === '-h') options.help = true;
    else if (arg === '--full') options.full = true;
    else if (arg === '--quick') options.full = false;
    else if (arg === '--scale') options.scale = Number(value());
    else if (arg === '--redis') options.redis = true;
    else if (arg === '--redis-hold') options.redisHold = true;
    else if (arg === '--exceptions') options.exceptions = true;
    else if (arg === '--footprint') options.footprint = true;
    else if (arg === '--parquet') options.parquet = true;
    else if (arg === '--scalable-memory') options.scalableMemory = true;
    else if (arg === '--live-filters') {
      const next = argv[i + 1];
      options.liveFilters = next !== undefined && !next.startsWith('--') ? Number(value()) : 30_000;
    } else if (arg === '--dedup') {
      const next = argv[i + 1];
      options.dedup = next !== undefined && !next.startsWith('--') ? Number(argv[++i]) : 10_000_000;
    } else if (arg === '--fpr') {
      options.fpr = Number(value());
      options.narrowed = true;
    } else if (arg === '--keys') {
      options.keys = value().split(',');
      options.narrowed = true;
    } else if (arg === '--reps') {
      options.reps = Number(value());
      options.narrowed = true;
    } else if (arg === '--sizes') {
      options.sizes = value().split(',').map(Number);
      options.narrowed = true;
    } else if (arg === '--only') {
      options.only = value().split(',');
      options.narrowed = true;
    } else if (arg === '--out') options.out = value();
    else if (arg === '--publish') options.publish = true;
    else if (arg === '--jobs') {
      options.jobs = Number(value());
      options.narrowed = true;
    } else if (arg === '--from') options.from = value();
    else if (arg === '--') continue;
    else throw new Error(`unknown option ${arg} (pnpm bench --help lists them)`);
  }
  return options;
}

/** Throws an Error naming the first option out of its range. */
function checkOptions(options: Options): void {
  const unknown = (options.only ?? []).filter((id) => !CONTENDERS.some((c) => c.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `--only: unknown contender ${unknown.join(', ')} (known: ${CONTENDERS.map((c) => c.id).join(', ')})`,
    );
  }
  if (options.sizes?.some((n) => !(Number.isInteger(n) && n >= 1000))) {
    throw new Error('--sizes must be integers of at least 1000, such as 100000,1000000');
  }
  const keyTypes = ['url', 'url-cons', 'binary'];
  const badKeys = (options.keys ?? []).filter((k) => !keyTypes.includes(k));
  if (badKeys.length > 0)
    throw new Error(`--keys: unknown key type ${badKeys.join(', ')} (known: ${keyTypes.join(', ')})`);
  if (options.publish && (options.narrowed || options.out !== '')) {
    throw new Error(
      '--publish writes the committed results of a whole run: not with --out, --only, --sizes, --reps, --keys, --fpr or --jobs',
    );
  }
  if (options.dedup !== undefined && !(Number.isInteger(options.dedup) && options.dedup >= 1000)) {
    throw new Error(`--dedup takes a line count of at least 1000 such as 1e7, got ${options.dedup}`);
  }
  if (
    options.liveFilters !== undefined &&
    !(
      Number.isInteger(options.liveFilters) &&
      options.liveFilters >= 1000 &&
      options.liveFilters % 1000 === 0
    )
  ) {
    throw new Error(`--live-filters takes a multiple of 1000 such as 30000, got ${options.liveFilters}`);
  }
  if (options.scale !== undefined && !(Number.isInteger(options.scale) && options.scale > 0)) {
    throw new Error(`--scale must be a positive integer such as 1e9, got ${options.scale}`);
  }
  if (!(Number.isInteger(options.reps) && options.reps >= 1))
    throw new Error('--reps must be a positive integer');
  if (options.jobs !== undefined && !(Number.isInteger(options.jobs) && options.jobs >= 1)) {
    throw new Error('--jobs must be a positive integer');
  }
}

function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `Node ${process.version}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

const progress = (line: string) => {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${line}`);
  else process.stderr.write(`${line}\n`);
};

async function writeCharts(rows: readonly Row[], out: string): Promise<string[]> {
  const url = rows.filter((r) => r.workload.keyType === 'url');
  const largest = Math.max(...url.map((r) => r.workload.n));
  const atLargest = url.filter((r) => r.workload.n === largest);
  const written: string[] = [];
  const charts: [string, () => Promise<string>][] = [
    ['throughput.svg', () => renderSvg(throughputSpec(atLargest.filter((r) => r.workload.fpr === 0.01)))],
    ['fpr.svg', () => renderSvg(fprSpec(atLargest))],
    ['bits-per-key.svg', () => renderSvg(bitsPerKeySpec(atLargest.filter((r) => r.workload.fpr === 0.01)))],
  ];
  for (const [name, render] of charts) {
    writeFileSync(join(out, name), await render());
    written.push(name);
  }
  return written;
}

export async function main(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  if (options.help) {
    process.stdout.write(usage());
    return;
  }
  mkdirSync(options.out, { recursive: true });
  // Where a run was written is not part of what it measured: a published run reads `pnpm bench` like any other.
  const command = `pnpm bench ${argv.filter((arg) => arg !== '--publish').join(' ')}`.trim();
  const report = (name: string, title: string, result: unknown, markdown: string) =>
    writeReport(options.out, name, title, command, result, markdown);

  /** A side report measured over `options.reps` repetitions: run, then written as `name` with its markdown. */
  const measured = async <T>(
    name: string,
    title: string,
    run: (reps: number, progress: (line: string) => void) => Promise<T>,
    markdown: (result: T) => string,
  ) => {
    const result = await run(options.reps, progress);
    report(name, title, result, markdown(result));
  };

  if (options.redis) {
    return measured('redis', 'bloomkit in Redis against hand-made recipes', runRedis, redisMarkdown);
  }
  if (options.redisHold) {
    const title = 'bloomkit in Redis: how long one function call holds the server';
    return measured('redis-hold', title, runRedisHold, redisHoldMarkdown);
  }
  if (options.exceptions) {
    const title = 'bloomkit exception lists: the cost on lookups';
    return measured('exceptions', title, runExceptionsInChild, exceptionsMarkdown);
  }
  if (options.footprint) {
    const title = 'bloomkit counting filters: speed against memory';
    return measured('footprint', title, runFootprintInChild, footprintMarkdown);
  }
  if (options.parquet) {
    const title = "Parquet split-block filters: bloomkit against hyparquet's bloom check";
    return measured('parquet', title, runParquetInChild, parquetMarkdown);
  }
  if (options.liveFilters !== undefined) {
    const result = await runLiveFiltersInChild(options.liveFilters, progress);
    return report('live-filters', 'bloomkit with many live filters', result, liveFiltersMarkdown(result));
  }
  if (options.scalableMemory) {
    const result = runScalableMemory();
    return report(
      'scalable-memory',
      'bloomkit scalable filters: memory over stream sizes',
      result,
      scalableMemoryMarkdown(result),
    );
  }
  if (options.dedup !== undefined) {
    const result = await runDedup(options.dedup, options.reps, progress);
    return report('dedup', 'bloomkit dedup against awk and sort', result, dedupMarkdown(result));
  }
  if (options.scale !== undefined) {
    const result = runScale(options.scale, options.fpr ?? 0.01, progress);
    return report(`scale-${options.scale}`, 'bloomkit --scale', result, scaleMarkdown(result));
  }
  if (options.from !== undefined) {
    // Re-render the tables and charts of a saved run, without measuring again.
    const saved = JSON.parse(readFileSync(options.from, 'utf8')) as {
      plan: Plan;
      measurements: Measurement[];
    };
    const charts = await writeCharts(aggregate(saved.measurements), options.out);
    process.stdout.write(`${markdownTables(aggregate(saved.measurements))}\n`);
    process.stderr.write(`re-rendered ${charts.join(', ')} from ${options.from}\n`);
    return;
  }
  await runComparison(options, command);
}

/** A side report (`--redis`, `--redis-hold`, `--dedup`, `--scale`, `--exceptions`, `--footprint`, `--parquet`, `--scalable-memory`, `--live-filters`): markdown on stdout and in NAME.md, the result in NAME.json. */
function writeReport(
  out: string,
  name: string,
  title: string,
  command: string,
  result: unknown,
  markdown: string,
): void {
  const text = `## ${title}\n\n${machine()}, ${new Date().toISOString().slice(0, 10)}, \`${command}\`\n\n${markdown}\n`;
  process.stdout.write(`${process.stderr.isTTY ? '\n' : ''}${text}`);
  writeFileSync(
    join(out, `${name}.json`),
    `${JSON.stringify({ machine: machine(), command, result }, null, 2)}\n`,
  );
  writeFileSync(join(out, `${name}.md`), text);
}

/** The main job: every contender of the plan in fresh processes, then the goals, tables, JSON and charts. */
async function runComparison(options: Options, command: string): Promise<void> {
  const planned = makePlan(options.full ? 'full' : 'quick', options.sizes, options.reps, options.jobs);
  const plan: Plan = {
    ...planned,
    workloads: planned.workloads.filter(
      (w) =>
        (options.keys === undefined || options.keys.includes(w.keyType)) &&
        (options.fpr === undefined || w.fpr === options.fpr),
    ),
  };
  const all = jobs(plan).filter((job) => options.only === undefined || options.only.includes(job.contender));
  const load = new MachineLoad().start();
  const started = performance.now();
  const measurements = await runAll(all, plan.concurrency, (i, job) =>
    progress(
      `[${i + 1}/${all.length}] ${job.keyType} n=${job.n} p=${job.fpr} ${job.contender} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    ),
  );
  // The fuse build from 64-bit hashes, when the plan has the fuse filter at 10^6 keys or more.
  const fuseAt = all.find((job) => job.contender === 'bloomkit-fuse' && job.n >= 1_000_000)?.n;
  const fromHashes =
    fuseAt === undefined
      ? undefined
      : await runFuseFromHashes(Math.min(fuseAt, 1_000_000), plan.repetitions, progress);
  if (process.stderr.isTTY) process.stderr.write('\n');
  load.stop();

  const rows = aggregate(measurements);
  const goals = checkGoals(rows, measurements, fromHashes);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const text = [
    `## bloomkit benchmark (${plan.mode})`,
    '',
    `${machine()}, ${new Date().toISOString().slice(0, 10)}, \`${command}\`, ${plan.repetitions} repetitions (medians; goal ratios are medians of per-repetition ratios with their min–max), each measurement in a fresh process, ${plan.concurrency === 1 ? 'one at a time' : `${plan.concurrency} at a time (side by side: absolute rates are noisier)`}, ${seconds} s. URL keys are decoded from one buffer into flat strings, as a reader of lines has them.`,
    `Fill budget ${plan.fillBudgetMs / 1000} s and probe budget ${plan.probeBudgetMs / 1000} s per measurement: a contender that cannot fill n keys in time is marked capped, and its rate and memory are not reported.`,
    load.describe(),
    '',
    '### Goals',
    '',
    goalsMarkdown(goals, load),
    '',
    markdownTables(rows),
  ].join('\n');
  process.stdout.write(`${text}\n`);
  writeFileSync(join(options.out, `${plan.mode}.md`), `${text}\n`);
  writeFileSync(
    join(options.out, `${plan.mode}.json`),
    `${JSON.stringify({ machine: machine(), command, plan, load: { peak: load.peak, busy: load.busy }, measurements, fromHashes }, null, 2)}\n`,
  );
  const charts = await writeCharts(rows, options.out);
  process.stderr.write(
    `wrote ${join(options.out, `${plan.mode}.md`)}, ${plan.mode}.json and ${charts.join(', ')}\n`,
  );
}

// Run when executed directly (`node dist/cli.js`), not when imported by the tests.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
