import { CONTENDERS, type Contender } from './contenders.js';
import type { Measurement } from './job.js';
import type { Workload } from './plan.js';
import { median } from './timing.js';

/** The medians of one contender on one workload over the repetitions (the fields of a Measurement). */
export type Row = Omit<Measurement, 'job' | 'fillCapped'> & {
  readonly contender: Contender;
  readonly workload: Workload;
  readonly repetitions: number;
  /** Whether any repetition's fill hit its budget. */
  readonly capped: boolean;
};

type Numeric = Exclude<
  { [K in keyof Measurement]: Measurement[K] extends number | null ? K : never }[keyof Measurement],
  undefined
>;

function med(runs: readonly Measurement[], field: Numeric): number | null {
  const values = runs.map((r) => r[field]).filter((v): v is number => v !== null && Number.isFinite(v));
  return values.length === 0 ? null : median(values);
}

export function workloadKey(w: Workload): string {
  return `${w.keyType}/${w.n}/${w.fpr}`;
}

/** Groups measurements by workload and contender and takes medians. */
export function aggregate(measurements: readonly Measurement[]): Row[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const key = `${workloadKey(m.job)}|${m.job.contender}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const rows: Row[] = [];
  for (const runs of groups.values()) {
    const first = runs[0]!;
    rows.push({
      contender: CONTENDERS.find((c) => c.id === first.job.contender)!,
      workload: { keyType: first.job.keyType, n: first.job.n, fpr: first.job.fpr },
      repetitions: runs.length,
      added: med(runs, 'added')!,
      capped: runs.some((r) => r.fillCapped),
      addOps: med(runs, 'addOps')!,
      hasHitOps: med(runs, 'hasHitOps')!,
      hasMissOps: med(runs, 'hasMissOps')!,
      batchHasOps: med(runs, 'batchHasOps'),
      batchAddOps: med(runs, 'batchAddOps'),
      deleteOps: med(runs, 'deleteOps'),
      batchDeleteOps: med(runs, 'batchDeleteOps'),
      measuredFpr: med(runs, 'measuredFpr'),
      absentProbed: med(runs, 'absentProbed')!,
      predictedFpr: med(runs, 'predictedFpr'),
      nominalBitsPerKey: med(runs, 'nominalBitsPerKey'),
      memoryBitsPerKey: med(runs, 'memoryBitsPerKey'),
      serializedBytes: med(runs, 'serializedBytes'),
      serializeMBps: med(runs, 'serializeMBps'),
      deserializeMs: med(runs, 'deserializeMs'),
      deserializeInPlaceMs: med(runs, 'deserializeInPlaceMs'),
    });
  }
  return rows;
}

/** Peers are the libraries users would pick instead: not bloomkit, not the exact Set, not the hash floor. */
export function isPeer(row: Row): boolean {
  return (
    row.contender.library === 'bloom-filters' ||
    row.contender.library === 'bloomfilter' ||
    row.contender.library === 'mnemonist'
  );
}

const mops = (ops: number | null) => (ops === null ? '—' : (ops / 1e6).toFixed(ops >= 1e6 ? 2 : 3));
const pct = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(rate < 0.001 ? 4 : 3)}%`);
const num = (x: number | null, digits = 2) => (x === null ? '—' : x.toFixed(digits));
const ratio = (x: number, y: number | undefined) =>
  y === undefined || !(y > 0) ? '—' : `${(x / y).toFixed(2)}×`; // no peer ran this workload: no ratio
const power = (n: number) => (Number.isInteger(Math.log10(n)) ? `10^${Math.log10(n)}` : String(n));

export function workloadTitle(w: Workload): string {
  const keys =
    w.keyType === 'url'
      ? 'URL keys'
      : w.keyType === 'url-cons'
        ? 'URL keys as cons strings (template literals)'
        : '16-byte binary keys';
  return `${keys}, n = ${power(w.n)}, p = ${w.fpr}`;
}

/** One Markdown table per workload; ratios are against the fastest peer in the same run. */
export function markdownTables(rows: readonly Row[]): string {
  const byWorkload = new Map<string, Row[]>();
  for (const row of rows)
    byWorkload.set(workloadKey(row.workload), [...(byWorkload.get(workloadKey(row.workload)) ?? []), row]);
  const out: string[] = [];
  for (const group of byWorkload.values()) {
    const peers = group.filter(isPeer);
    const best = (field: 'addOps' | 'hasMissOps') =>
      peers.length === 0 ? undefined : Math.max(...peers.map((r) => r[field]));
    out.push(`### ${workloadTitle(group[0]!.workload)}`, '');
    out.push(
      '| contender | add M/s | has (hit) M/s | has (miss) M/s | batch add M/s | batch has M/s | delete M/s | batch delete M/s | add vs best peer | miss vs best peer | fpr measured | fpr predicted | bits/key | serialized | serialize MB/s | deserialize ms (in place) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    const order = new Map(CONTENDERS.map((c, i) => [c.id, i]));
    for (const r of [...group].sort((a, b) => order.get(a.contender.id)! - order.get(b.contender.id)!)) {
      const capped = r.capped ? ` (fill capped at ${r.added.toLocaleString('en-US')} keys)` : '';
      out.push(
        `| ${r.contender.label}${capped} | ${mops(r.addOps)} | ${mops(r.hasHitOps)} | ${mops(r.hasMissOps)} | ${mops(r.batchAddOps)} | ${mops(r.batchHasOps)} | ${mops(r.deleteOps)} | ${mops(r.batchDeleteOps)} | ${ratio(r.addOps, best('addOps'))} | ${ratio(r.hasMissOps, best('hasMissOps'))} | ${pct(r.measuredFpr)} | ${pct(r.predictedFpr)} | ${r.nominalBitsPerKey !== null ? num(r.nominalBitsPerKey) : r.memoryBitsPerKey !== null ? `${num(r.memoryBitsPerKey, 0)} (heap)` : '—'} | ${r.serializedBytes === null ? '—' : `${(r.serializedBytes / 1e6).toFixed(2)} MB`} | ${num(r.serializeMBps, 0)} | ${r.deserializeMs === null ? '—' : `${num(r.deserializeMs, 3)}${r.deserializeInPlaceMs === null ? '' : ` (${num(r.deserializeInPlaceMs, 4)})`}`} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
