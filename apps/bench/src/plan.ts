import { CONTENDERS, type Contender } from './contenders.js';
import type { Job } from './job.js';
import type { KeyType } from './keys.js';

/** One workload: a key type, a number of keys and a target rate (and, in quick mode, who runs it). */
export interface Workload {
  readonly keyType: KeyType;
  readonly n: number;
  readonly fpr: number;
  /** Contender ids; all that take the key type when absent. */
  readonly contenders?: readonly string[];
}

export interface Plan {
  readonly mode: 'quick' | 'full';
  readonly workloads: readonly Workload[];
  readonly repetitions: number;
  readonly fillBudgetMs: number;
  readonly probeBudgetMs: number;
  readonly absentKeys: number;
  /** Measurements running at once (each in its own process). */
  readonly concurrency: number;
}

/** The contenders of the headline goals at 10^6 URL keys. */
export const HEADLINE: readonly string[] = [
  'bloomkit-standard',
  'bloomkit-partitioned',
  'bloomkit-counting',
  'bloomkit-scalable',
  'bloomkit-blocked',
  'bloomkit-window',
  'bloomkit-cuckoo',
  'bloomkit-fuse',
  'bloomfilter',
  'hash-only',
];
/** The memory-bound case, 10^7 keys (12 MB of bits), in --full: the blocked layout against the standard one and the peer. */
const OUT_OF_CACHE: readonly string[] = [
  'bloomkit-blocked',
  'bloomkit-standard',
  'bloomkit-fuse',
  'bloomfilter',
  'hash-only',
];
/**
 * bloom-filters' XorFilter builds about 6,000 keys a second (a BigInt a slot): it runs on URL keys at p = 0.01 only,
 * its 10^6 build alone about three minutes a measurement.
 */
const SLOW_FIXED_SET = 'bloom-filters-xor';
/** The in-cache case (10^5 keys, 117 KiB): bloomkit's has against hashing alone, and the peer. */
const IN_CACHE: readonly string[] = ['bloomkit-standard', 'bloomfilter', 'hash-only'];

/**
 * Quick (the README's main job, about 3 minutes on 2 cores): only what the headline goals need — URL keys as flat
 * strings at p = 0.01, the kinds and the fastest peer at 10^6, the in-cache case at 10^5 — five repetitions, one
 * measurement at a time. Full: every contender on URL keys (flat, and as cons strings at 10^6), 16-byte keys, 10^5 to
 * 10^7 keys, p = 0.01 and 0.001. Budgets stop contenders that would take minutes (bloom-filters fills about 60,000
 * keys a second, and its scalable filter about 1,000); they are reported as capped, never extrapolated.
 * `concurrency` above 1 runs measurements side by side: faster, and noisier (labelled in the report).
 */
export function makePlan(
  mode: 'quick' | 'full',
  sizes?: readonly number[],
  repetitions = 5,
  concurrency = 1,
): Plan {
  const workloads: Workload[] = [];
  if (mode === 'quick') {
    if (sizes === undefined) {
      workloads.push({ keyType: 'url', n: 1_000_000, fpr: 0.01, contenders: HEADLINE });
      workloads.push({ keyType: 'url', n: 100_000, fpr: 0.01, contenders: IN_CACHE });
    } else {
      for (const n of sizes) workloads.push({ keyType: 'url', n, fpr: 0.01, contenders: HEADLINE });
    }
  } else {
    const ns = sizes ?? [100_000, 1_000_000, 10_000_000];
    for (const keyType of ['url', 'binary'] as const) {
      for (const n of ns) {
        for (const fpr of [0.01, 0.001]) {
          // 10^7 keys take ~30 s a measurement: only the contenders of the memory-bound comparison run there.
          const contenders =
            n >= 10_000_000
              ? OUT_OF_CACHE.filter((id) => keyType === 'url' || id !== 'bloomfilter')
              : undefined;
          workloads.push(contenders === undefined ? { keyType, n, fpr } : { keyType, n, fpr, contenders });
        }
      }
    }
    const consAt = ns.includes(1_000_000) ? 1_000_000 : ns[0]!;
    workloads.push({ keyType: 'url-cons', n: consAt, fpr: 0.01 });
  }
  return {
    mode,
    workloads,
    repetitions,
    // 3.5 s lets every bloomkit kind fill 10^6 keys; full mode waits longer.
    fillBudgetMs: mode === 'quick' ? 3_500 : 20_000,
    probeBudgetMs: mode === 'quick' ? 350 : 3_000,
    // Quick: 2·10^5 absent keys give ±7% on a 0.1% rate (200 expected hits); full: 10^6.
    absentKeys: mode === 'quick' ? 200_000 : 1_000_000,
    concurrency,
  };
}

/**
 * The contenders that take this workload's keys: its own list when it has one, else every contender that takes
 * the key type. The exact Set and the hash floor do not depend on p: they run with the first target only.
 */
export function contendersFor(workload: Workload, firstFpr: number): Contender[] {
  if (workload.contenders !== undefined) {
    return workload.contenders
      .map((id) => CONTENDERS.find((c) => c.id === id)!)
      .filter((c) => c !== undefined);
  }
  return CONTENDERS.filter(
    (c) =>
      (workload.keyType !== 'binary' || c.binary) &&
      (workload.fpr === firstFpr || (c.library !== 'Set' && c.library !== 'hash only')) &&
      (c.id !== SLOW_FIXED_SET || (workload.keyType === 'url' && workload.fpr === 0.01)),
  );
}

/**
 * Every job, interleaved: for each repetition, each workload runs every contender once, in an order rotated per
 * repetition, so no contender always runs first (or right after the same neighbour).
 */
export function jobs(plan: Plan): Job[] {
  const out: Job[] = [];
  for (let rep = 0; rep < plan.repetitions; rep++) {
    for (const workload of plan.workloads) {
      const contenders = contendersFor(workload, plan.workloads[0]!.fpr);
      for (let i = 0; i < contenders.length; i++) {
        const contender = contenders[(i + rep * 3) % contenders.length]!;
        out.push({
          rep,
          contender: contender.id,
          keyType: workload.keyType,
          n: workload.n,
          fpr: workload.fpr,
          fillBudgetMs: plan.fillBudgetMs,
          probeBudgetMs: plan.probeBudgetMs,
          absentKeys: plan.absentKeys,
        });
      }
    }
  }
  return out;
}
