import { existsSync } from 'node:fs';
import { CliError, EXIT } from '../errors.js';
import { readFilterFile, writeFilterFile } from '../files.js';
import { type AnyFilter, createFilter, type FilterSpec, type KindName, kindName } from '../filters.js';
import { KeyView } from '../key-view.js';
import { withInput } from '../keys.js';
import { forEachLine, LF, NUL } from '../lines.js';
import { peakMemoryBytes } from '../memory.js';
import { Output } from '../output.js';
import { Progress } from '../progress.js';

export interface DedupOptions {
  /** Input files in order; none means stdin. */
  readonly files: readonly string[];
  /** Filter file loaded before and saved after, so a later run resumes where this one stopped. */
  readonly state: string | undefined;
  /** The filter a run without a state file starts from: blocked with a capacity, else scalable. */
  readonly kind: KindName | undefined;
  readonly capacity: number | undefined;
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
 * constant for a given capacity, growing only with a scalable filter's chain, never with the input.
 */
export function runDedup(options: DedupOptions): number {
  const filter = openState(options);
  const out = new Output();
  const progress = new Progress(options.quiet);
  const started = performance.now();
  let lines = 0;
  let written = 0;
  const separator = options.nul ? NUL : LF;
  const keys = new KeyView();
  for (const file of options.files.length > 0 ? options.files : ['-']) {
    withInput(file, (fd) =>
      forEachLine(fd, separator, (chunk, start, end, next) => {
        if (filter.add(keys.of(chunk, start, end))) {
          out.bytes(chunk, start, next);
          written++;
        }
        if ((++lines & 0xffff) === 0) progress.tick(lines, filter);
      }),
    );
  }
  progress.done();
  out.flush();
  if (options.state !== undefined) writeFilterFile(options.state, filter);
  if (options.stats) {
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `dedup: ${lines} lines in, ${written} out, ${lines - written} dropped; ${Math.round(lines / seconds)} lines/s; ${kindName(filter)} filter, ${filter.bits} bits, false-positive rate now ${filter.expectedFpr().toPrecision(2)}; peak memory ${Math.round(peakMemoryBytes() / 2 ** 20)} MiB\n`,
    );
  }
  return EXIT.ok;
}

/** The state file's filter when it exists (its kind and size win over the options), else a new one. */
function openState(options: DedupOptions): AnyFilter {
  const { state } = options;
  if (state !== undefined && existsSync(state)) {
    const filter = readFilterFile(state);
    if (options.kind !== undefined && kindName(filter) !== options.kind) {
      throw new CliError(`${state}: holds a ${kindName(filter)} filter, not ${options.kind}`);
    }
    return filter;
  }
  return createFilter(newFilterSpec(options));
}

/** With a capacity, the fastest kind (blocked); without, a scalable filter that grows with the stream. */
export function newFilterSpec(options: Pick<DedupOptions, 'kind' | 'capacity' | 'fpr' | 'seed'>): FilterSpec {
  const kind = options.kind ?? (options.capacity === undefined ? 'scalable' : 'blocked');
  if (options.capacity === undefined && kind !== 'scalable') {
    throw new CliError(
      `dedup --kind ${kind} needs --capacity (only a scalable filter grows with the stream)`,
    );
  }
  return {
    kind,
    capacity: options.capacity ?? DEDUP_INITIAL_CAPACITY,
    fpr: options.fpr ?? DEDUP_FPR,
    seed: options.seed,
  };
}
