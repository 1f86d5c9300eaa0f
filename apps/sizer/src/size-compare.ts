import { blockedLayout, partitionedLayout, solveShape, standardLayout } from '@bloomkit/core';
import { cuckooShape } from '@bloomkit/cuckoo';
import { fuseLayout } from '@bloomkit/fuse';
import { splitBlockBitsetBytes } from '@bloomkit/parquet';
import { rate } from './numbers.js';
import type { PlotSpec, Point, Series } from './plot.js';

/** One line of the comparison: a kind's name, its colour, and its bits a key for n keys at rate p (or none). */
interface Contender {
  readonly name: string;
  readonly colour: string;
  bitsPerKey(n: number, p: number): number | undefined;
}

/** The Bloom layouts' bits a key at their best k (core's solveShape, the layout's exact rate). */
const bloom = (layout: typeof standardLayout) => (n: number, p: number) =>
  solveShape({ capacity: n, fpr: p }, layout).bitsPerKey;

/** A shape that has no answer at this p (past a kind's reach) is left out of its line. */
function orNone(size: () => number): number | undefined {
  try {
    return size();
  } catch {
    return undefined;
  }
}

const CONTENDERS: readonly Contender[] = [
  { name: 'standard', colour: '#1f6feb', bitsPerKey: bloom(standardLayout) },
  { name: 'partitioned', colour: '#8250df', bitsPerKey: bloom(partitionedLayout) },
  { name: 'blocked', colour: '#0969da', bitsPerKey: bloom(blockedLayout) },
  {
    name: 'counting (4-bit)',
    colour: '#bf8700',
    bitsPerKey: (n, p) => 4 * bloom(standardLayout)(n, p),
  },
  {
    name: 'parquet (split-block)',
    colour: '#6e7781',
    bitsPerKey: (n, p) => orNone(() => (splitBlockBitsetBytes(n, p) * 8) / n),
  },
  { name: 'cuckoo', colour: '#d1242f', bitsPerKey: (n, p) => orNone(() => cuckooShape(n, p).bitsPerKey) },
  {
    // A fixed set's rate is 2^-8 or 2^-16: the narrowest width whose rate is at most p.
    name: 'fuse (fixed set)',
    colour: '#2da44e',
    bitsPerKey: (n, p) =>
      p >= 2 ** -8
        ? (fuseLayout(n).arrayLength * 8) / n
        : p >= 2 ** -16
          ? (fuseLayout(n).arrayLength * 16) / n
          : undefined,
  },
];

/**
 * Memory against the rate for every kind sized by n and p, at n keys: bits a key for rates from 10% to 10^-6, one
 * line a kind (the scalable, window and exceptions kinds are sized by more than n and p, and are left out). The
 * page shows it beside the kinds that are chosen against the others: cuckoo (against counting, for deletes) and
 * fuse (against the Bloom kinds, for a fixed set).
 */
export function kindsPlot(n: number): PlotSpec {
  const rates: number[] = [];
  for (let i = 0; i <= 50; i++) rates.push(10 ** (-1 - (5 * i) / 50));
  const series: Series[] = CONTENDERS.map((contender) => {
    const points: Point[] = [];
    for (const p of rates) {
      const bits = contender.bitsPerKey(n, p);
      if (bits !== undefined && Number.isFinite(bits)) points.push([p, bits]);
    }
    return { name: contender.name, points, style: 'line', colour: contender.colour };
  });
  return {
    title: `bits a key against the rate, every kind sized by n and p, n = ${n.toLocaleString('en-US')}`,
    x: { label: 'false-positive rate p', log: true, format: rate, min: 1e-6, max: 0.1 },
    y: { label: 'bits a key (memory)', log: false, format: (v) => v.toFixed(0), min: 0 },
    series,
  };
}
