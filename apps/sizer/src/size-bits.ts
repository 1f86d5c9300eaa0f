import { type Layout, solveShape } from '@bloomkit/core';
import { type FilterClass, isSingleKind } from '@bloomkit/filters';
import {
  parquetBitsetBytes,
  SplitBlockBloomFilter,
  splitBlockBitsetBytes,
  splitBlockLayout,
} from '@bloomkit/parquet';
import { COLOURS } from './colours.js';
import { bytes, compact, grouped, rate } from './numbers.js';
import type { PlotSpec, Point, Series } from './plot.js';
import { type Row, row } from './rows.js';
import type { Sized, SizeInput } from './size.js';

/** Filters up to this many bytes are also built and measured, to put measured rates beside the formula. */
export const MEASURE_MAX_BYTES = 4 * 1024 * 1024;
const MEASURE_PROBES = 20_000;

/** Standard, partitioned, blocked, counting: any two of n, p, m (and k if known), by `solveShape`. */
export function sizeSingle(Class: FilterClass, input: SizeInput): Sized {
  const layout = Class.kind.layout;
  const shape = solveShape(
    { capacity: input.capacity, fpr: input.fpr, bits: input.bits, hashes: input.hashes },
    layout,
  );
  const counterBits = Class.kind.counterWidths.includes(input.counterBits ?? -1)
    ? input.counterBits!
    : Class.kind.counterWidths[0]!;
  const slotBits = Math.max(1, counterBits);
  const rows: Row[] = [
    row('hashes', 'k (positions per key)', shape.hashes),
    ...(shape.bits === null
      ? []
      : [
          row('bits', counterBits > 0 ? 'm (counters)' : 'm (bits)', shape.bits, grouped(shape.bits)),
          row(
            'bytes',
            'memory',
            Math.ceil((shape.bits * slotBits) / 8),
            bytes(Math.ceil((shape.bits * slotBits) / 8)),
          ),
        ]),
    ...(shape.capacity === null
      ? []
      : [row('capacity', 'n (keys)', shape.capacity, grouped(shape.capacity))]),
    row(
      'bitsPerKey',
      counterBits > 0 ? 'counters per key' : 'bits per key',
      shape.bitsPerKey,
      shape.bitsPerKey.toFixed(2),
    ),
    row('fpr', shape.capacity === null ? 'p (for large n)' : 'p at n keys', shape.fpr, rate(shape.fpr)),
    ...(counterBits > 0 ? [row('counterBits', 'counter bits', counterBits)] : []),
  ];
  if (shape.capacity === null || shape.bits === null) return { rows, plot: undefined };
  const { capacity, bits, hashes } = shape;
  const measured =
    isSingleKind(Class) && (bits * slotBits) / 8 <= MEASURE_MAX_BYTES && capacity <= 200_000
      ? measureRate(
          new Class({ bits, hashes, seed: 1, ...(counterBits > 0 ? { counterBits } : {}) }),
          capacity,
        )
      : undefined;
  return {
    rows,
    plot: ratePlot(Class.kind.name, layout, bits, hashes, capacity, input.fpr ?? shape.fpr, measured),
  };
}

/** Parquet's split-block kind: n and p give the bitset `create` picks, beside the one Parquet's writers pick. */
export function sizeSplitBlock(input: SizeInput): Sized {
  if (input.capacity === undefined || input.fpr === undefined) {
    throw new RangeError(
      'parquet: give n (distinct values) and p; a split-block bitset is a power of two in bytes',
    );
  }
  const { capacity, fpr } = input;
  // The layout's rate and block size, for the bitset create picks and the one Parquet's writers pick.
  const rateOf = (bitsetBytes: number) => splitBlockLayout.falsePositiveRate(bitsetBytes * 8, capacity, 8);
  const chosen = splitBlockBitsetBytes(capacity, fpr);
  const writers = parquetBitsetBytes(capacity, fpr);
  const bits = chosen * 8;
  const blocks = bits / splitBlockLayout.bitsUnit(8);
  const rows = [
    row('bytes', 'bitset', chosen, bytes(chosen)),
    row('bits', 'm (bits)', bits, grouped(bits)),
    row('blocks', 'blocks of 256 bits', blocks, grouped(blocks)),
    row('hashes', 'k (one bit in each of 8 words)', 8),
    row('bitsPerKey', 'bits per value', bits / capacity, (bits / capacity).toFixed(2)),
    row('fpr', 'p at n values', rateOf(chosen), rate(rateOf(chosen))),
    row('writersBytes', 'bitset parquet-java, Arrow, DuckDB pick', writers, bytes(writers)),
    row('writersFpr', 'their p at n values', rateOf(writers), rate(rateOf(writers))),
  ];
  const measured =
    chosen <= MEASURE_MAX_BYTES && capacity <= 200_000
      ? measureRate(SplitBlockBloomFilter.create(capacity, fpr), capacity)
      : undefined;
  return { rows, plot: ratePlot('parquet', splitBlockLayout, bits, 8, capacity, fpr, measured) };
}

/** The rate as keys arrive, up to twice the capacity: the layout's formula, the target, measured points. */
function ratePlot(
  name: string,
  layout: Layout,
  bits: number,
  hashes: number,
  capacity: number,
  target: number,
  measured: Measured | undefined,
): PlotSpec {
  const formula: Point[] = [];
  for (let i = 1; i <= 80; i++) {
    const keys = Math.max(1, Math.round((i / 80) * 2 * capacity));
    formula.push([keys, layout.falsePositiveRate(bits, keys, hashes)]);
  }
  const low = Math.min(target / 100, formula[3]![1]);
  const series: Series[] = [
    { name: `${layout.name} formula`, points: formula, style: 'line', colour: COLOURS.formula },
    {
      name: `target ${rate(target)}`,
      points: [
        [1, target],
        [2 * capacity, target],
      ],
      style: 'guide',
      colour: COLOURS.guide,
    },
    {
      name: `n = ${grouped(capacity)}`,
      points: [
        [capacity, low],
        [capacity, 1],
      ],
      style: 'guide',
      colour: COLOURS.ideal,
    },
  ];
  if (measured !== undefined) {
    series.push({ name: 'measured here', points: measured.points, style: 'dots', colour: COLOURS.measured });
    if (measured.bounds.length > 0) {
      series.push({
        name: `measured: at most (≤ ${FEW_HITS} in ${grouped(MEASURE_PROBES)})`,
        points: measured.bounds,
        style: 'bounds',
        colour: COLOURS.measured,
      });
    }
  }
  return {
    title: `${name}: false-positive rate as keys arrive`,
    x: { label: 'keys added', log: false, format: compact, min: 0, max: 2 * capacity },
    y: { label: 'false-positive rate', log: true, format: rate, min: low, max: 1 },
    series,
  };
}

/**
 * Rates measured on a filter: points where enough probes hit to read a rate, and where too few did (at most
 * {@link FEW_HITS} of {@link MEASURE_PROBES}), the 95% upper bound of the rate instead: the probes cannot tell a
 * rate below it from 0, so the page draws it as a bound, not as a measured value far above the formula.
 */
interface Measured {
  readonly points: readonly Point[];
  readonly bounds: readonly Point[];
}

/** Hits too few to read a rate from. */
const FEW_HITS = 3;
/** The 95% upper limit of a Poisson mean for 0, 1, 2 and 3 events seen (Garwood's exact interval). */
const POISSON_UPPER_95 = [2.996, 4.744, 6.296, 7.754];

/** Adds keys in eight steps up to twice `capacity` and, after each, asks 20,000 keys never added. */
function measureRate(
  filter: { addAll(keys: Iterable<string>): number; hasMany(keys: readonly string[]): boolean[] },
  capacity: number,
): Measured {
  const probes = Array.from({ length: MEASURE_PROBES }, (_, i) => `probe-${i}`);
  const points: Point[] = [];
  const bounds: Point[] = [];
  let added = 0;
  for (let step = 1; step <= 8; step++) {
    const to = Math.round((step / 8) * 2 * capacity);
    const keys: string[] = [];
    for (let i = added; i < to; i++) keys.push(`key-${i}`);
    filter.addAll(keys);
    added = to;
    const hits = filter.hasMany(probes).filter(Boolean).length;
    if (hits > FEW_HITS) points.push([to, hits / MEASURE_PROBES]);
    else bounds.push([to, POISSON_UPPER_95[hits]! / MEASURE_PROBES]);
  }
  return { points, bounds };
}
