import { fileURLToPath } from 'node:url';
import { BlockedBloomFilter } from '@bloomkit/blocked';
import { hashInto } from '@bloomkit/core/kit';
import { SplitBlockBloomFilter } from '@bloomkit/parquet';
import { hashParquetValue, sbbfContains } from 'hyparquet/src/bloom.js';
// The hasher the split-block filter runs (not in the package's public surface: `xxh64` there returns a bigint).
import { xxh64Hasher } from '../../../packages/parquet/dist/xxh64-hasher.js';
import { runInChild } from './child-report.js';
import { interleaved, ownLoop, type Probe, SLICE } from './interleave.js';
import { asLines, urlKeys } from './keys.js';
import { median } from './timing.js';

/**
 * `--parquet`: Parquet's split-block filter against hyparquet's own bloom check (`hashParquetValue`, BigInt XXH64,
 * then `sbbfContains`) on the same filter: one filter of 10^6 URL values and one of 10^6 INT64 values, each sized
 * as DuckDB sizes it at 1%, probed with 10^6 values (half present). The readers run interleaved in one process,
 * round-robin over slices of the values, the first reader rotating per slice, each with a loop compiled for it
 * alone. Beside them: bloomkit's blocked filter of the same URL keys (single-key `has`), and the hashes alone,
 * XXH64 and MurmurHash3 of the same URL keys (about 40 bytes each).
 */
export interface ParquetResult {
  readonly n: number;
  readonly reps: number;
  /** Per repetition, lookups (or hashes) per second of each reader on each workload. */
  readonly measurements: readonly { readonly reader: string; readonly perSecond: number }[];
}

const N = 1_000_000;
const CHILD = fileURLToPath(new URL('./parquet-child.js', import.meta.url));

/** The readers of one workload, by name. */
function readers(values: readonly unknown[], type: 'BYTE_ARRAY' | 'INT64'): Record<string, Probe> {
  const filter = SplitBlockBloomFilter.create(N, 0.01, { type, sizing: 'parquet' });
  filter.addAll(values as never[]);
  const blocks = new Uint32Array(filter.bitset().slice().buffer);
  const element = type === 'BYTE_ARRAY' ? { name: 'v', type, converted_type: 'UTF8' } : { name: 'v', type };
  const answers = { out: [] as boolean[] };
  const probes: Record<string, Probe> = {
    'hyparquet has': ownLoop(
      'for (let i = start; i < end; i++) if (sbbfContains(blocks, hashParquetValue(keys[i], element))) hits++;',
      {
        sbbfContains,
        hashParquetValue,
        blocks,
        element,
      },
    ),
    'bloomkit has': ownLoop('for (let i = start; i < end; i++) if (filter.has(keys[i])) hits++;', { filter }),
    'bloomkit hasMany': ownLoop(
      'answers.out = filter.hasMany(keys.slice(start, end)); for (const a of answers.out) if (a) hits++;',
      { filter, answers },
    ),
  };
  if (type === 'BYTE_ARRAY') {
    const blocked = BlockedBloomFilter.create(N, 0.01);
    blocked.addAll(values as string[]);
    const hasher = xxh64Hasher();
    const pair = new Uint32Array(2);
    const words = new Int32Array(4);
    probes['blocked has'] = ownLoop('for (let i = start; i < end; i++) if (blocked.has(keys[i])) hits++;', {
      blocked,
    });
    probes['xxh64 alone'] = ownLoop(
      'for (let i = start; i < end; i++) { hasher.text(keys[i], pair); hits += pair[0] & 1; }',
      {
        hasher,
        pair,
      },
    );
    probes['murmur3 alone'] = ownLoop(
      'for (let i = start; i < end; i++) { hashInto(keys[i], 0, words, "b"); hits += words[0] & 1; }',
      {
        hashInto,
        words,
      },
    );
  }
  return probes;
}

/** INT64 values as a column of ids holds them: bigints spread over the range, present ones even, absent odd. */
function int64Values(count: number, space: 'present' | 'absent'): bigint[] {
  const out: bigint[] = [];
  let x = 0x9e3779b97f4a7c15n;
  for (let i = 0; i < count; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    out.push(BigInt.asIntN(64, (x & ~1n) | (space === 'absent' ? 1n : 0n)));
  }
  return out;
}

export function runParquet(reps: number, progress: (line: string) => void): ParquetResult {
  const urls = asLines(urlKeys(N, 'present'));
  const urlProbes = [...urls.slice(0, N / 2), ...asLines(urlKeys(N / 2, 'absent'))];
  const ids = int64Values(N, 'present');
  const idProbes = [...ids.slice(0, N / 2), ...int64Values(N / 2, 'absent')];
  const workloads: [string, readonly unknown[], Record<string, Probe>][] = [
    ['URL', urlProbes, readers(urls, 'BYTE_ARRAY')],
    ['INT64', idProbes, readers(ids, 'INT64')],
  ];
  const measurements: { reader: string; perSecond: number }[] = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const [workload, keys, probes] of workloads) {
      const ms = interleaved(keys, probes);
      for (const [name, spent] of Object.entries(ms)) {
        measurements.push({ reader: `${workload}: ${name}`, perSecond: (keys.length / spent) * 1000 });
      }
    }
    progress(`parquet: repetition ${rep + 1} of ${reps}`);
  }
  return { n: N, reps, measurements };
}

/** {@link runParquet} in a fresh process (parquet-child.js), as every other measurement. */
export function runParquetInChild(reps: number, progress: (line: string) => void): Promise<ParquetResult> {
  return runInChild<ParquetResult>('--parquet', CHILD, [String(reps)], progress);
}

export function parquetMarkdown(result: ParquetResult): string {
  const rates = (reader: string) =>
    result.measurements.filter((m) => m.reader === reader).map((m) => m.perSecond);
  const ratio = (a: string, b: string) => {
    const x = rates(a);
    const y = rates(b);
    return x.map((value, i) => value / y[i]!);
  };
  const span = (values: number[]) =>
    `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
  const goal = (values: number[], at: number) => (median(values) >= at ? 'met' : '**short**');
  const urlHas = ratio('URL: bloomkit has', 'URL: hyparquet has');
  const idHas = ratio('INT64: bloomkit has', 'INT64: hyparquet has');
  const batch = ratio('URL: bloomkit hasMany', 'URL: blocked has');
  const hash = ratio('URL: xxh64 alone', 'URL: murmur3 alone');
  const readersSeen = [...new Set(result.measurements.map((m) => m.reader))];
  return [
    `One split-block filter of ${result.n.toLocaleString('en-US')} values at 1% (DuckDB's size) per workload, probed with ${result.n.toLocaleString('en-US')} values, half present; hyparquet reads the same bitset. The readers run interleaved in one process, round-robin over slices of ${SLICE.toLocaleString('en-US')} values; ${result.reps} repetitions, medians with min–max of the per-repetition ratios.`,
    '',
    '| goal | result | numbers |',
    '| --- | --- | --- |',
    `| single-value \`has\` ≥ 10× hyparquet's bloom check (URL values) | ${goal(urlHas, 10)} | ${span(urlHas)} |`,
    `| single-value \`has\` ≥ 10× hyparquet's bloom check (INT64 values) | ${goal(idHas, 10)} | ${span(idHas)} |`,
    `| \`hasMany\` ≥ 1.5× bloomkit blocked single-key \`has\` (URL values) | ${goal(batch, 1.5)} | ${span(batch)} |`,
    `| XXH64 of a URL value ≥ MurmurHash3 of the same key | ${goal(hash, 1)} | ${span(hash)} |`,
    '',
    '| reader | lookups (hashes) per second |',
    '| --- | --- |',
    ...readersSeen.map((reader) => `| ${reader} | ${(median(rates(reader)) / 1e6).toFixed(2)} M/s |`),
  ].join('\n');
}
