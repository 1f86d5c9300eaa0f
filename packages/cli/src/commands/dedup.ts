import { existsSync } from 'node:fs';
import { kindByName } from '@bloomkit/filters';
import type { WindowBloomFilter } from '@bloomkit/window';
import { CapacityWatch } from '../capacity.js';
import { CliError, EXIT } from '../errors.js';
import { readFilterFile, writeFilterFile } from '../files.js';
import { type AnyFilter, createFilter, type FilterSpec, kindName, takesHashes } from '../filters.js';
import { FirstCopies, storesCopies } from '../first-copies.js';
import { withInput } from '../keys.js';
import { LineBatch } from '../line-batch.js';
import { forEachLine, LF, NUL } from '../lines.js';
import { type WriterOptions, withLockedFile } from '../locked-file.js';
import { LongLineDedup } from '../long-line.js';
import { peakMemoryBytes } from '../memory.js';
import { Output } from '../output.js';
import { Progress } from '../progress.js';

export interface DedupOptions {
  /** Input files in order; none means stdin. */
  readonly files: readonly string[];
  /** Filter file loaded before and saved after, so a later run resumes where this one stopped. */
  readonly state: string | undefined;
  /** The kind of a new filter: scalable unless `fixed` (then blocked) or given. */
  readonly kind: string | undefined;
  /** A new filter's capacity: the first sub-filter's for a scalable one, the whole for a fixed one. */
  readonly capacity: number | undefined;
  /** A filter of fixed size (`--fixed`): faster, but past its capacity its rate rises (warned, exit 3). */
  readonly fixed: boolean;
  /**
   * `--window`: a filter that forgets, keeping the last `lines` lines, or every line of the last `durationMs`
   * (with `--capacity` the most lines per duration).
   */
  readonly window?: { readonly lines: number } | { readonly durationMs: number } | undefined;
  readonly fpr: number | undefined;
  readonly seed: number | 'random' | undefined;
  readonly nul: boolean;
  readonly quiet: boolean;
  /** One summary line on stderr at the end. */
  readonly stats: boolean;
}

/** The default of `dedup --fpr`: one distinct line in 10,000 wrongly dropped, at capacity. */
export const DEDUP_FPR = 1e-4;
/** The first sub-filter of `dedup` without `--capacity` (a scalable filter), in lines. */
export const DEDUP_INITIAL_CAPACITY = 100_000;

/**
 * `dedup`: writes each line the first time it is seen, in input order, and drops the lines the filter has seen
 * (every repeat, and the rare new line that is a false positive, at the filter's rate). Memory is the filter's:
 * constant for a fixed filter, growing only with a scalable filter's chain, never with the input, not even with a
 * line's length (a line past the 1 MiB buffer is hashed in pieces: see long-line.ts).
 *
 * The rate is a promise: by default the filter is scalable (it grows past any capacity and keeps its rate). A
 * fixed filter (`--fixed`, or a fixed kind) that passes its capacity says so on stderr the moment it does, and the
 * run exits with status 3.
 *
 * With `--state`, the run is the state file's only writer (a second run waits for it; see withLockedFile), and the
 * state is saved atomically at the end, or when a stop signal ends the input early: the lines handled by then are
 * both printed and in the state, so a later run over the same input prints exactly the lines this one did not.
 */
export async function runDedup(options: DedupOptions, writer: WriterOptions): Promise<number> {
  if (options.state === undefined)
    return dedup(createFilter(newFilterSpec(options)), undefined, options, writer);
  const state = options.state;
  return withLockedFile(state, writer, async (target) =>
    dedup(await openState(target, state, options, writer), { target, label: state }, options, writer),
  );
}

async function dedup(
  filter: AnyFilter,
  state: { target: string; label: string } | undefined,
  options: DedupOptions,
  writer: WriterOptions,
): Promise<number> {
  if (!takesHashes(filter)) {
    // A line past the read buffer is hashed in pieces as it streams by, which needs a kind that takes hashes.
    throw new CliError(
      `${state?.label ?? 'dedup'}: dedup cannot keep a ${kindName(filter)} filter (it does not take hashed lines); use another kind`,
    );
  }
  const out = new Output();
  const progress = new Progress(options.quiet);
  const label = state?.label ?? 'dedup';
  const watch = CapacityWatch.of(filter, label);
  // A filter that stores a copy per add takes only absent lines, and past its room prints what it cannot record.
  let full = false;
  const adder = storesCopies(filter)
    ? new FirstCopies(filter, () => {
        full = true;
        process.stderr.write(
          `bloomkit: ${label}: warning: full at ${filter.count} keys: a new line finds no room; lines it cannot record are printed each time they come. Create a larger filter, or use a scalable one\n`,
        );
      })
    : filter;
  const started = performance.now();
  let lines = 0;
  let written = 0;
  const separator = options.nul ? NUL : LF;
  const batch = new LineBatch(
    filter,
    separator,
    {
      write: (chunk, start, end) => out.bytes(chunk, start, end),
      counted(more, fresh) {
        const before = lines;
        lines += more;
        written += fresh;
        if (fresh > 0) watch.checkBatch(filter.count - fresh, filter.count);
        if (before >>> 16 !== lines >>> 16) progress.tick(lines, filter);
      },
    },
    adder,
  );
  const long = new LongLineDedup(adder, out, (isNew) => {
    lines++;
    if (isNew) {
      written++;
      watch.check(filter.count);
    }
  });
  try {
    for (const file of options.files.length > 0 ? options.files : ['-']) {
      if (writer.interrupts.interrupted) break;
      await withInput(file, (input) =>
        forEachLine(
          input,
          separator,
          (chunk, start, end, next) => batch.last(chunk, start, end, next),
          writer.interrupts,
          long,
          (chunk, start, end) => batch.lines(chunk, start, end),
        ),
      );
    }
  } finally {
    long.close();
  }
  progress.done();
  if (state !== undefined) writeFilterFile(state.target, filter, state.label);
  out.flush();
  if (options.stats) {
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `dedup: ${lines} lines in, ${written} out, ${lines - written} dropped; ${Math.round(lines / seconds)} lines/s; ${kindName(filter)} filter, ${filter.bits} bits, false-positive rate now ${filter.expectedFpr().toPrecision(2)}; peak memory ${Math.round(peakMemoryBytes() / 2 ** 20)} MiB\n`,
    );
  }
  return writer.interrupts.exitStatus ?? (watch.passed || full ? EXIT.overCapacity : EXIT.ok);
}

/** The state file's filter when it exists (its kind and size win over the options), else a new one. */
async function openState(
  target: string,
  label: string,
  options: DedupOptions,
  writer: WriterOptions,
): Promise<AnyFilter> {
  if (existsSync(target)) {
    const filter = await readFilterFile(target, 'batches', writer.interrupts);
    const wanted = options.window !== undefined ? 'window' : options.kind;
    if (wanted !== undefined && kindName(filter) !== wanted) {
      throw new CliError(`${label}: holds a ${kindName(filter)} filter, not ${wanted}`);
    }
    if (options.window !== undefined) {
      checkStateWindow(filter as WindowBloomFilter, label, options.window, options.capacity);
    }
    return filter;
  }
  return createFilter(newFilterSpec(options));
}

/**
 * A state's window must be the one `--window` asks for: a window of other lines or another duration would silently
 * keep other lines than the user asked for. A CliError names both (leave out --window to use the state's).
 */
function checkStateWindow(
  filter: WindowBloomFilter,
  label: string,
  window: NonNullable<DedupOptions['window']>,
  capacity: number | undefined,
): void {
  const held =
    filter.duration === undefined
      ? `the last ${filter.window} lines`
      : `a window of ${filter.duration} ms for ${filter.window} lines`;
  const asked =
    'lines' in window
      ? `the last ${window.lines} lines`
      : `a window of ${window.durationMs} ms${capacity === undefined ? '' : ` for ${capacity} lines`}`;
  const same =
    'lines' in window
      ? filter.duration === undefined && filter.window === window.lines
      : filter.duration === window.durationMs && (capacity === undefined || capacity === filter.window);
  if (!same) {
    throw new CliError(
      `${label}: holds ${held}, but --window asks for ${asked}; leave out --window to go on with the state's, or start a new state`,
    );
  }
}

/**
 * A new filter for `dedup`: scalable from `--capacity` (default {@link DEDUP_INITIAL_CAPACITY}) unless the user
 * asks for a fixed one (`--fixed`: blocked, the fastest kind; or a fixed `--kind`), which needs a capacity.
 */
export function newFilterSpec(
  options: Pick<DedupOptions, 'kind' | 'capacity' | 'fixed' | 'fpr' | 'seed' | 'window'>,
): FilterSpec {
  if (options.window !== undefined) return windowSpec(options, options.window);
  const growing = options.kind !== undefined && kindByName(options.kind)?.kind.params === 'chain';
  if (options.fixed && growing) {
    throw new CliError(
      `dedup: --fixed and --kind ${options.kind} contradict each other (a ${options.kind} filter grows)`,
    );
  }
  const kind = options.kind ?? (options.fixed ? 'blocked' : 'scalable');
  if (options.kind === 'window') {
    throw new CliError(
      'dedup: a window filter is sized by --window N (lines) or --window 24h with --capacity',
    );
  }
  if (options.capacity === undefined && (options.kind !== undefined ? !growing : options.fixed)) {
    throw new CliError(
      `dedup: a fixed filter (${kind}) needs --capacity (only a scalable filter grows with the stream)`,
    );
  }
  return {
    kind,
    capacity: options.capacity ?? DEDUP_INITIAL_CAPACITY,
    fpr: options.fpr ?? DEDUP_FPR,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
}

/** `--window N` (the last N lines) or `--window 24h --capacity N` (every line of the last day, N per day). */
function windowSpec(
  options: Pick<DedupOptions, 'kind' | 'capacity' | 'fixed' | 'fpr' | 'seed'>,
  window: NonNullable<DedupOptions['window']>,
): FilterSpec {
  if (options.fixed) {
    throw new CliError(
      'dedup: --window and --fixed contradict each other (a window forgets old lines instead)',
    );
  }
  if (options.kind !== undefined && options.kind !== 'window') {
    throw new CliError(`dedup: --window makes a window filter, not --kind ${options.kind}`);
  }
  const seed = options.seed === undefined ? {} : { seed: options.seed };
  const fpr = options.fpr ?? DEDUP_FPR;
  if ('lines' in window) {
    if (options.capacity !== undefined) {
      throw new CliError(
        'dedup: --window N is the number of lines kept; --capacity goes with a time window (--window 24h)',
      );
    }
    return { kind: 'window', capacity: window.lines, fpr, ...seed };
  }
  if (options.capacity === undefined) {
    throw new CliError(
      'dedup: a time window needs --capacity N, the most lines per window it must keep (more shorten its memory; the rate holds)',
    );
  }
  return { kind: 'window', capacity: options.capacity, fpr, duration: window.durationMs, ...seed };
}
