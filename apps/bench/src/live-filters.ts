import { fileURLToPath } from 'node:url';
import { BlockedBloomFilter } from '@bloomkit/blocked';
import { StandardBloomFilter } from '@bloomkit/standard';
import { runInChild } from './child-report.js';

/**
 * `--live-filters [N]`: a storage engine's load, a filter per table file, all live at once. N filters of 300 KB
 * (capacity 250,000 at 1%; standard, then blocked, each kind in a fresh process run with --expose-gc) are created
 * and each is given 100 keys, so that its bits are touched (N = 30,000 holds about 9 GB). Reported: the time of
 * each 1,000 `create` calls alone, the fills apart; the resident memory before, with every filter live, and after
 * every filter is dropped and collected. Beside them, the same fills on plain 300 KB arrays (100 bytes written
 * each): what the machine charges for touching new memory, which bounds the fills.
 */
export interface LiveFiltersResult {
  readonly n: number;
  readonly kinds: readonly LiveFiltersRun[];
}

export interface LiveFiltersRun {
  readonly kind: string;
  readonly bytes: number;
  /** Milliseconds of each 1,000 consecutive creates (the creates alone). */
  readonly createMs: readonly number[];
  /** Milliseconds of each 1,000 consecutive fills (100 keys each). */
  readonly fillMs: readonly number[];
  /** Milliseconds of each 1,000 writes of 100 bytes into fresh plain arrays of the same size (the baseline). */
  readonly plainMs: readonly number[];
  /** Resident set sizes in MiB: at the start, with all filters live, after they are dropped and collected. */
  readonly rssStart: number;
  readonly rssLive: number;
  readonly rssAfter: number;
}

const CHILD = fileURLToPath(new URL('./live-filters-child.js', import.meta.url));
const CAPACITY = 250_000;
const FPR = 0.01;
const KEYS_EACH = 100;
const STEP = 1_000;

const rss = () => process.memoryUsage().rss / 2 ** 20;

/** Collects until the finalizers that return kernel memory have run (they run as tasks after a collection). */
async function collect(gc: () => void): Promise<void> {
  for (let round = 0; round < 20; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One kind's run, in this process (`gc` is the runtime's, from --expose-gc). */
export async function runLiveFilters(
  kind: 'standard' | 'blocked',
  n: number,
  gc: () => void,
  progress: (line: string) => void,
): Promise<LiveFiltersRun> {
  const create = () =>
    kind === 'standard'
      ? StandardBloomFilter.create(CAPACITY, FPR)
      : BlockedBloomFilter.create(CAPACITY, FPR);
  const keys = Array.from({ length: KEYS_EACH }, (_, i) => `https://example.com/table/${i}/`);
  await collect(gc);
  const rssStart = rss();
  let filters: (StandardBloomFilter | BlockedBloomFilter)[] = [];
  const createMs: number[] = [];
  const fillMs: number[] = [];
  for (let done = 0; done < n; done += STEP) {
    let creating = 0;
    let filling = 0;
    for (let i = done; i < Math.min(n, done + STEP); i++) {
      const t0 = performance.now();
      const filter = create();
      const t1 = performance.now();
      for (let j = 0; j < KEYS_EACH; j++) filter.add(keys[j]! + i);
      filling += performance.now() - t1;
      creating += t1 - t0;
      filters.push(filter);
    }
    createMs.push(creating);
    fillMs.push(filling);
    if ((done / STEP) % 5 === 4)
      progress(`live filters (${kind}): ${done + STEP} live, rss ${rss().toFixed(0)} MiB`);
  }
  const bytes = filters[0]!.serialize().length;
  const rssLive = rss();
  filters = [];
  await collect(gc);
  const rssAfter = rss();
  return { kind, bytes, createMs, fillMs, plainMs: plainFills(n, bytes, gc), rssStart, rssLive, rssAfter };
}

/** The baseline: `n` fresh plain arrays of `bytes` bytes, 100 bytes written in each, timed per 1,000. */
function plainFills(n: number, bytes: number, gc: () => void): number[] {
  let arrays: Uint8Array[] = [];
  const ms: number[] = [];
  for (let done = 0; done < n; done += STEP) {
    const t = performance.now();
    for (let i = done; i < Math.min(n, done + STEP); i++) {
      const array = new Uint8Array(bytes);
      for (let j = 0; j < KEYS_EACH; j++) array[(j * 2_971 + i) % bytes] = 1;
      arrays.push(array);
    }
    ms.push(performance.now() - t);
  }
  arrays = [];
  gc();
  return ms;
}

/** Both kinds, each in a fresh process with --expose-gc. */
export async function runLiveFiltersInChild(
  n: number,
  progress: (line: string) => void,
): Promise<LiveFiltersResult> {
  const kinds: LiveFiltersRun[] = [];
  for (const kind of ['standard', 'blocked']) {
    kinds.push(
      await runInChild<LiveFiltersRun>('--live-filters', CHILD, [kind, String(n)], progress, ['--expose-gc']),
    );
  }
  return { n, kinds };
}

export function liveFiltersMarkdown(result: LiveFiltersResult): string {
  const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
  const rows = result.kinds.map((run) => {
    const first = run.createMs[0]!;
    const last = run.createMs.at(-1)!;
    const ratio = last / first;
    const back = run.rssAfter - run.rssStart;
    return [
      `| ${run.kind} | ${(run.bytes / 1000).toFixed(0)} KB | ${first.toFixed(0)} ms | ${last.toFixed(0)} ms | ${ratio.toFixed(2)}× (${ratio <= 2 ? 'met' : '**short**'})`,
      `${((sum(run.createMs) / result.n) * 1000).toFixed(0)} µs`,
      `${run.fillMs[0]!.toFixed(0)} → ${run.fillMs.at(-1)!.toFixed(0)} ms`,
      `${run.plainMs[0]!.toFixed(0)} → ${run.plainMs.at(-1)!.toFixed(0)} ms`,
      `${run.rssStart.toFixed(0)} / ${(run.rssLive / 1024).toFixed(1)} GiB / ${run.rssAfter.toFixed(0)} MiB (${back >= 0 ? '+' : ''}${back.toFixed(0)} MiB: ${back <= 100 ? 'met' : '**short**'}) |`,
    ].join(' | ');
  });
  return [
    `${result.n.toLocaleString('en-US')} filters live in one process, each of capacity ${CAPACITY.toLocaleString('en-US')} at ${FPR} (about 300 KB) and given ${KEYS_EACH} keys; each kind in a fresh process. Goals: the last 1,000 creates take at most twice the first 1,000; after the filters are dropped and collected, the resident memory is within 100 MB of where it started. The fills (100 adds each, which touch the filter's new pages) are timed apart, beside the same writes into fresh plain arrays: the machine's cost of touching new memory.`,
    '',
    '| kind | file | first 1,000 creates | last 1,000 creates | last / first | mean create | fills, first → last 1,000 | plain arrays, first → last 1,000 | RSS start / live / after |',
    '| --- | --- | ---: | ---: | --- | ---: | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
