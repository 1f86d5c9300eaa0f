import { FROM_HASHES_GOAL, type FuseHashesResult } from './fuse-hashes.js';
import type { Measurement } from './job.js';
import type { KeyType } from './keys.js';
import type { MachineLoad } from './machine-load.js';
import type { Row } from './report.js';
import { scalableMemoryGoals } from './scalable-memory.js';
import { median } from './timing.js';

/** One of the goals in the benchmark issue, checked against this run's numbers. */
export interface GoalResult {
  readonly goal: string;
  readonly met: boolean | null;
  readonly detail: string;
}

function find(rows: readonly Row[], id: string, keyType: KeyType, n: number, fpr: number): Row | undefined {
  return rows.find(
    (r) =>
      r.contender.id === id && r.workload.keyType === keyType && r.workload.n === n && r.workload.fpr === fpr,
  );
}

/** A ratio across repetitions: the median of the per-repetition ratios, and their spread. */
interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

type Op = 'addOps' | 'hasHitOps' | 'hasMissOps' | 'batchHasOps' | 'batchAddOps' | 'batchDeleteOps';

/**
 * ours/peer for `op`, repetition by repetition (each repetition runs both, one after the other, in fresh
 * processes), so a drift of the machine's speed between repetitions cancels out.
 */
function spread(
  measurements: readonly Measurement[],
  ours: string,
  peer: string,
  n: number,
  op: Op,
  peerOp: Op = op,
): Spread | undefined {
  const pick = (id: string) =>
    measurements.filter(
      (m) => m.job.contender === id && m.job.keyType === 'url' && m.job.n === n && m.job.fpr === 0.01,
    );
  const a = pick(ours);
  const b = pick(peer);
  const ratios: number[] = [];
  for (const m of a) {
    const partner = b.find((x) => x.job.rep === m.job.rep);
    const mine = m[op];
    const theirs = partner?.[peerOp];
    if (mine != null && theirs != null) ratios.push(mine / theirs);
  }
  if (ratios.length === 0) return undefined;
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

const fmt = (s: Spread) => `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;

/** A goal on ratios to a peer: met when every op's median reaches `at least`; null when not measured. */
function ratioGoal(
  measurements: readonly Measurement[],
  goal: string,
  ours: string,
  peer: string,
  n: number,
  ops: readonly [label: string, op: Op][],
  atLeast: number,
): GoalResult | undefined {
  const parts = ops.map(([label, op]) => [label, spread(measurements, ours, peer, n, op)] as const);
  if (parts.some(([, s]) => s === undefined)) return undefined;
  return {
    goal,
    met: parts.every(([, s]) => s!.median >= atLeast),
    detail: parts.map(([label, s]) => `${label} ${fmt(s!)}`).join(', '),
  };
}

/**
 * The goals of the open issues, reported (never asserted): where bloomkit falls short, the report says so with
 * the numbers. Ratios are medians of per-repetition ratios, with their min–max spread.
 */
export function checkGoals(
  rows: readonly Row[],
  measurements: readonly Measurement[],
  fromHashes?: FuseHashesResult,
): GoalResult[] {
  const sizes = [...new Set(rows.map((r) => r.workload.n))].sort((a, b) => a - b);
  // The goals are stated at 10^6 and 10^7 keys; a run at smaller sizes only reports them at its largest.
  const goalSizes = sizes.filter((size) => size >= 1_000_000);
  if (goalSizes.length === 0 && sizes.length > 0) goalSizes.push(sizes.at(-1)!);
  const results = [
    ...goalSizes.flatMap((n) => speedGoals(measurements, n)),
    cacheGoal(rows, measurements, sizes[0]),
    rateGoal(rows),
    bitsGoal(rows),
    ...serializeGoals(rows, sizes),
    ...(rows.some((r) => r.contender.id === 'bloomkit-scalable') ? scalableMemoryGoals() : []),
    fromHashes === undefined ? undefined : fromHashesGoal(fromHashes),
  ];
  return results.filter((r): r is GoalResult => r !== undefined);
}

const SINGLE: readonly [string, Op][] = [
  ['add', 'addOps'],
  ['has hit', 'hasHitOps'],
  ['has miss', 'hasMissOps'],
];

/** The speed goals at `n` keys, each kind against `bloomfilter` (and standard against `bloom-filters`). */
function speedGoals(measurements: readonly Measurement[], n: number): (GoalResult | undefined)[] {
  const target = n >= 10_000_000 ? 1.1 : 1.3;
  const blockedTarget = n >= 10_000_000 ? 2 : 1.5;
  const vsBloomfilter = (goal: string, id: string, ops: readonly [string, Op][], atLeast: number) =>
    ratioGoal(measurements, goal, id, 'bloomfilter', n, ops, atLeast);
  const out = [
    vsBloomfilter(
      `standard ≥ ${target}× bloomfilter (n = ${n}, URL keys)`,
      'bloomkit-standard',
      SINGLE,
      target,
    ),
    vsBloomfilter(
      `partitioned ≥ ${target}× bloomfilter (n = ${n}, URL keys)`,
      'bloomkit-partitioned',
      SINGLE,
      target,
    ),
    vsBloomfilter(`counting add and has ≥ 0.8× bloomfilter (n = ${n})`, 'bloomkit-counting', SINGLE, 0.8),
    vsBloomfilter(
      `scalable (from 1,000) add ≥ 0.6× bloomfilter (n = ${n})`,
      'bloomkit-scalable',
      [['add', 'addOps']],
      0.6,
    ),
    vsBloomfilter(
      `window (of n keys) add and has ≥ 1× bloomfilter on a static filter (n = ${n})`,
      'bloomkit-window',
      SINGLE,
      1,
    ),
    vsBloomfilter(
      `blocked single-key add and has ≥ ${blockedTarget}× bloomfilter (n = ${n})`,
      'bloomkit-blocked',
      SINGLE,
      blockedTarget,
    ),
  ];
  out.push(
    vsBloomfilter(`cuckoo has ≥ 1× bloomfilter (n = ${n})`, 'bloomkit-cuckoo', SINGLE.slice(1), 1),
    vsBloomfilter(`cuckoo add ≥ 0.8× bloomfilter (n = ${n})`, 'bloomkit-cuckoo', SINGLE.slice(0, 1), 0.8),
  );
  out.push(
    batchGoal(
      measurements,
      n,
      'bloomkit-cuckoo',
      `cuckoo hasMany ≥ 2× bloomfilter's has (n = ${n})`,
      'hasMany',
      2,
    ),
    batchGoal(
      measurements,
      n,
      'bloomkit-cuckoo',
      `cuckoo addAll ≥ 2× bloomfilter's add (n = ${n})`,
      'addAll',
      2,
    ),
    batchGoal(
      measurements,
      n,
      'bloomkit-cuckoo',
      `cuckoo deleteAll ≥ 2× bloomfilter's add (n = ${n})`,
      'deleteAll',
      2,
    ),
  );
  out.push(...fuseGoals(measurements, n));
  const batchAdd = spread(measurements, 'bloomkit-blocked', 'bloomfilter', n, 'batchAddOps', 'addOps');
  const batchHas = spread(measurements, 'bloomkit-blocked', 'bloomfilter', n, 'batchHasOps', 'hasHitOps');
  if (batchAdd !== undefined && batchHas !== undefined) {
    out.push({
      goal: `blocked addAll and hasMany ≥ 2.2× bloomfilter's add and has (n = ${n})`,
      met: batchAdd.median >= 2.2 && batchHas.median >= 2.2,
      detail: `addAll ${fmt(batchAdd)}, hasMany ${fmt(batchHas)} (batches of 4,096; hasMany half hits, half misses, vs bloomfilter's has hit)`,
    });
  }
  const slow = spread(measurements, 'bloomkit-standard', 'bloom-filters-standard', n, 'addOps');
  if (slow !== undefined) {
    out.push({
      goal: `standard ≥ 50× bloom-filters (n = ${n})`,
      met: slow.median >= 50,
      detail: `add ${fmt(slow)}`,
    });
  }
  return out;
}

/** The fuse build from 64-bit hashes (fuse-hashes.ts): ≥ 8 M keys a second at 10^6 keys. */
function fromHashesGoal(result: FuseHashesResult): GoalResult {
  const rates = result.ms.map((ms) => result.n / ms / 1000);
  return {
    goal: `fuse fromHashes ≥ ${FROM_HASHES_GOAL / 1e6} M keys/s (n = ${result.n} random 64-bit keys)`,
    met: result.keysPerSecond >= FROM_HASHES_GOAL,
    detail: `${(result.keysPerSecond / 1e6).toFixed(2)} M keys/s (${Math.min(...rates).toFixed(2)}–${Math.max(...rates).toFixed(2)}), each build in a fresh process after one warm-up build`,
  };
}

/**
 * A batch goal against `bloomfilter`'s single-key rate: `hasMany` against its has (of present keys), `addAll`
 * against its add, `deleteAll` (of the keys added) against its add too (it has no delete; a delete's work is an
 * add's); undefined when not measured.
 */
function batchGoal(
  measurements: readonly Measurement[],
  n: number,
  id: string,
  goal: string,
  batch: 'hasMany' | 'addAll' | 'deleteAll',
  atLeast: number,
): GoalResult | undefined {
  const ops: Record<typeof batch, [Op, Op]> = {
    hasMany: ['batchHasOps', 'hasHitOps'],
    addAll: ['batchAddOps', 'addOps'],
    deleteAll: ['batchDeleteOps', 'addOps'],
  };
  const [op, peerOp] = ops[batch];
  const ratio = spread(measurements, id, 'bloomfilter', n, op, peerOp);
  if (ratio === undefined) return undefined;
  return { goal, met: ratio.median >= atLeast, detail: `${batch} ${fmt(ratio)}` };
}

/**
 * The binary fuse filter's goals (a fixed set; its "add" is its build from the keys in hand): has ≥ 1.1× and
 * hasMany ≥ 2.5× bloomfilter's has, a build of ≥ 2 M URL keys a second at 10^6, and against bloom-filters' XorFilter
 * ≥ 10× the build rate and ≥ 30× the memory efficiency (its bits a key from the heap, ours stated).
 */
function fuseGoals(measurements: readonly Measurement[], n: number): GoalResult[] {
  const out: GoalResult[] = [];
  const has = ratioGoal(
    measurements,
    `fuse has ≥ 1.1× bloomfilter (n = ${n})`,
    'bloomkit-fuse',
    'bloomfilter',
    n,
    SINGLE.slice(1),
    1.1,
  );
  if (has !== undefined) out.push(has);
  const batch = batchGoal(
    measurements,
    n,
    'bloomkit-fuse',
    `fuse hasMany ≥ 2.5× bloomfilter's has (n = ${n})`,
    'hasMany',
    2.5,
  );
  if (batch !== undefined) out.push(batch);
  const builds = measurements
    .filter(
      (m) =>
        m.job.contender === 'bloomkit-fuse' && m.job.keyType === 'url' && m.job.n === n && m.job.fpr === 0.01,
    )
    .map((m) => m.addOps / 1e6);
  if (builds.length > 0 && n >= 1_000_000) {
    const rate = median(builds);
    out.push({
      goal: `fuse build ≥ 2 M URL keys/s (n = ${n})`,
      met: rate >= 2,
      detail: `${rate.toFixed(2)} M keys/s (${Math.min(...builds).toFixed(2)}–${Math.max(...builds).toFixed(2)})`,
    });
  }
  const build = spread(measurements, 'bloomkit-fuse', 'bloom-filters-xor', n, 'addOps');
  const ours = measurements.filter(
    (m) =>
      m.job.contender === 'bloomkit-fuse' && m.job.n === n && m.job.fpr === 0.01 && m.job.keyType === 'url',
  );
  const theirs = measurements.filter(
    (m) =>
      m.job.contender === 'bloom-filters-xor' &&
      m.job.n === n &&
      m.job.fpr === 0.01 &&
      m.job.keyType === 'url',
  );
  const oursBits = median(ours.map((m) => m.nominalBitsPerKey ?? Number.NaN));
  const theirBits = median(theirs.flatMap((m) => (m.memoryBitsPerKey === null ? [] : [m.memoryBitsPerKey])));
  if (build !== undefined && Number.isFinite(oursBits) && theirs.length > 0 && Number.isFinite(theirBits)) {
    const memory = theirBits / oursBits;
    out.push({
      goal: `fuse ≥ 10× the build rate and ≥ 30× the memory efficiency of bloom-filters XorFilter (n = ${n})`,
      met: build.median >= 10 && memory >= 30,
      detail: `build ${fmt(build)}, memory ${memory.toFixed(0)}× (${theirBits.toFixed(0)} bits a key on the heap against ${oursBits.toFixed(2)})`,
    });
  }
  return out;
}

/** Single-key has on an in-cache filter against hashing alone, at the smallest size below 10^6. */
function cacheGoal(
  rows: readonly Row[],
  measurements: readonly Measurement[],
  small: number | undefined,
): GoalResult | undefined {
  if (small === undefined || small >= 1_000_000) return undefined;
  const cost = spread(measurements, 'hash-only', 'bloomkit-standard', small, 'hasHitOps');
  const ours = find(rows, 'bloomkit-standard', 'url', small, 0.01);
  if (cost === undefined || ours === undefined) return undefined;
  return {
    goal: `single-key has on an in-cache filter ≤ 1.3× hashing alone (n = ${small}, ${(((ours.nominalBitsPerKey ?? 0) * small) / 8 / 1024).toFixed(0)} KiB)`,
    met: cost.median <= 1.3,
    detail: `has hit costs ${fmt(cost)} the hash (${(1e9 / ours.hasHitOps).toFixed(0)} ns/key)`,
  };
}

/**
 * Every kind's measured rate against its target. The chooser makes the predicted rate just below the target, so a
 * measured rate lands above the target about half the time by chance alone. Met means: within the 99.9% upper
 * confidence bound of the target for the number of absent keys probed (binomial, normal approximation).
 */
function rateGoal(rows: readonly Row[]): GoalResult {
  const ours = rows.filter((r) => r.contender.library === 'bloomkit' && r.measuredFpr !== null);
  const bound = (r: Row) =>
    r.workload.fpr + 3.09 * Math.sqrt((r.workload.fpr * (1 - r.workload.fpr)) / r.absentProbed);
  const beyond = ours.filter((r) => r.measuredFpr! > bound(r));
  const above = ours.filter((r) => r.measuredFpr! > r.workload.fpr);
  return {
    goal: 'measured false-positive rate at or below target for every bloomkit kind (99.9% bound)',
    met: beyond.length === 0,
    detail:
      beyond.length === 0
        ? `all ${ours.length} within the bound; ${above.length} of them above the target itself (median ratio to target ${median(ours.map((r) => r.measuredFpr! / r.workload.fpr)).toFixed(3)})`
        : beyond
            .map(
              (r) =>
                `${r.contender.label} ${r.workload.keyType} n=${r.workload.n} p=${r.workload.fpr}: ${(r.measuredFpr! * 100).toFixed(4)}% over ${r.absentProbed} probes`,
            )
            .join('; '),
  };
}

/** The standard filter's bits per key against the optimum −ln p / (ln 2)²; none when no standard filter ran. */
function bitsGoal(rows: readonly Row[]): GoalResult | undefined {
  const standard = rows.filter((r) => r.contender.id === 'bloomkit-standard' && r.nominalBitsPerKey !== null);
  if (standard.length === 0) return undefined;
  const worst = Math.max(
    ...standard.map((r) => r.nominalBitsPerKey! / (-Math.log(r.workload.fpr) / Math.LN2 ** 2)),
  );
  return {
    goal: 'standard bits per key within 0.5% of −ln p / (ln 2)²',
    met: worst <= 1.005,
    detail: `worst ${((worst - 1) * 100).toFixed(3)}% above the optimum`,
  };
}

/** Serialize speed at the largest size ≥ 10^6, and in-place deserialize under 0.1 ms at every size (it copies no bits, but its time is not constant: 1 µs at 10^5, 12 µs at 10^6 and 15 µs at 10^7 keys on 2026-11-25). */
function serializeGoals(rows: readonly Row[], sizes: readonly number[]): (GoalResult | undefined)[] {
  const biggest = sizes.filter((size) => size >= 1_000_000).at(-1);
  if (biggest === undefined) return [];
  const out: (GoalResult | undefined)[] = [];
  const row = find(rows, 'bloomkit-standard', 'url', biggest, 0.01);
  if (row?.serializeMBps != null) {
    out.push({
      goal: `serialize faster than 1 GB/s (n = ${biggest})`,
      met: row.serializeMBps >= 1000,
      detail: `${row.serializeMBps.toFixed(0)} MB/s (copy plus CRC-32C of ${((row.serializedBytes ?? 0) / 1e6).toFixed(1)} MB)`,
    });
  }
  const inPlace = sizes
    .map((n) => find(rows, 'bloomkit-standard', 'url', n, 0.01))
    .filter((r): r is Row => r?.deserializeInPlaceMs != null);
  if (inPlace.length > 0) {
    const times = inPlace.map((r) => r.deserializeInPlaceMs!);
    out.push({
      goal: 'deserialize without copying in under 0.1 ms at every size',
      met: Math.max(...times) < 0.1,
      detail: inPlace
        .map((r) => `n=${r.workload.n}: ${(r.deserializeInPlaceMs! * 1000).toFixed(1)} µs`)
        .join(', '),
    });
  }
  return out;
}

/** The goals as a table; `load` marks every verdict not judged when the machine was busy (machine-load.ts). */
export function goalsMarkdown(goals: readonly GoalResult[], load?: MachineLoad): string {
  const mark = (met: boolean | null) =>
    load !== undefined ? load.verdict(met) : met === null ? 'n/a' : met ? 'met' : '**short**';
  return [
    '| goal | result | numbers |',
    '| --- | --- | --- |',
    ...goals.map((g) => `| ${g.goal} | ${mark(g.met)} | ${g.detail} |`),
  ].join('\n');
}
