import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { isPeer, type Row, workloadTitle } from './report.js';

/** Renders a vega-lite spec to an SVG string, headless. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

const family = (row: Row) =>
  row.contender.library === 'bloomkit' ? 'bloomkit' : isPeer(row) ? 'peer' : row.contender.library;

/** Operations per second per contender on one workload: add, has (hit), has (miss), batch add and batch has. */
export function throughputSpec(rows: readonly Row[]): TopLevelSpec {
  const values = rows.flatMap((r) => [
    { contender: r.contender.label, op: 'add', mops: r.addOps / 1e6 },
    { contender: r.contender.label, op: 'has (hit)', mops: r.hasHitOps / 1e6 },
    { contender: r.contender.label, op: 'has (miss)', mops: r.hasMissOps / 1e6 },
    ...(r.batchAddOps === null
      ? []
      : [{ contender: r.contender.label, op: 'batch add', mops: r.batchAddOps / 1e6 }]),
    ...(r.batchHasOps === null
      ? []
      : [{ contender: r.contender.label, op: 'batch has', mops: r.batchHasOps / 1e6 }]),
  ]);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Throughput, ${workloadTitle(rows[0]!.workload)} (millions of operations per second, log scale)`,
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'contender', type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 320 } },
      yOffset: { field: 'op' },
      x: { field: 'mops', type: 'quantitative', scale: { type: 'log' }, title: 'M ops/s' },
      color: { field: 'op', type: 'nominal', title: 'operation' },
    },
    width: 520,
    height: { step: 9 },
  };
}

/** Measured false-positive rate next to the target, per contender and target. */
export function fprSpec(rows: readonly Row[]): TopLevelSpec {
  const values = rows
    .filter((r) => r.measuredFpr !== null && r.contender.library !== 'Set')
    .map((r) => ({
      contender: r.contender.label,
      family: family(r),
      target: `p = ${r.workload.fpr}`,
      measured: r.measuredFpr,
      goal: r.workload.fpr,
    }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Measured false-positive rate vs target (${rows[0]!.workload.keyType === 'url' ? 'URL' : 'binary'} keys, n = ${rows[0]!.workload.n}; bar = measured, tick = target)`,
    data: { values },
    facet: { column: { field: 'target', type: 'nominal', title: null } },
    resolve: { scale: { x: 'independent' } },
    spec: {
      width: 260,
      layer: [
        {
          mark: 'bar',
          encoding: {
            y: { field: 'contender', type: 'nominal', title: null, axis: { labelLimit: 320 } },
            x: {
              field: 'measured',
              type: 'quantitative',
              title: 'false-positive rate',
              axis: { format: '.2%' },
            },
            color: { field: 'family', type: 'nominal', title: null },
          },
        },
        {
          mark: { type: 'tick', color: 'black', thickness: 2 },
          encoding: {
            y: { field: 'contender', type: 'nominal' },
            x: { field: 'goal', type: 'quantitative' },
          },
        },
      ],
    },
  };
}

/** Bits per key (the structure's m/n; the exact Set's measured heap), against the optimum −ln p / (ln 2)². */
export function bitsPerKeySpec(rows: readonly Row[]): TopLevelSpec {
  const p = rows[0]!.workload.fpr;
  const values = rows
    .filter((r) => (r.nominalBitsPerKey ?? r.memoryBitsPerKey) !== null)
    .map((r) => ({
      contender: r.contender.label,
      family: family(r),
      bits: r.nominalBitsPerKey ?? r.memoryBitsPerKey,
    }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Bits per key (${workloadTitle(rows[0]!.workload)}; Set: measured heap; rule = optimum ${(-Math.log(p) / Math.LN2 ** 2).toFixed(2)} bits, log scale)`,
    data: { values },
    layer: [
      {
        mark: 'bar',
        encoding: {
          y: { field: 'contender', type: 'nominal', sort: 'x', title: null, axis: { labelLimit: 320 } },
          x: { field: 'bits', type: 'quantitative', scale: { type: 'log' }, title: 'bits per key' },
          color: { field: 'family', type: 'nominal', title: null },
        },
      },
      {
        data: { values: [{ optimum: -Math.log(p) / Math.LN2 ** 2 }] },
        mark: { type: 'rule', color: 'black', strokeDash: [4, 3] },
        encoding: { x: { field: 'optimum', type: 'quantitative' } },
      },
    ],
    width: 520,
  };
}
