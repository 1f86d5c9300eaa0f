import { CONTENDERS, type Contender } from './contenders.js';
import type { Job } from './job.js';
import type { KeyType } from './keys.js';

/** One workload: a key type, a number of keys and a target rate. */
export interface Workload {
  readonly keyType: KeyType;
  readonly n: number;
  readonly fpr: number;
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

/**
 * Quick: 10^5 and 10^6 keys; full adds 10^7. Both: URL and binary keys, p = 0.01 and 0.001, three repetitions
 * (medians are reported). Quick mode runs two measurements at once (one per core of the 2-core machines this is
 * made for), full mode one at a time. Budgets stop contenders that would take minutes (bloom-filters fills about 60,000 keys
 * a second, and its scalable filter about 1,000); they are reported as capped, never extrapolated.
 */
export function makePlan(
  mode: 'quick' | 'full',
  sizes?: readonly number[],
  repetitions = 3,
  concurrency: number = mode === 'quick' ? 2 : 1,
): Plan {
  const ns = sizes ?? (mode === 'quick' ? [100_000, 1_000_000] : [100_000, 1_000_000, 10_000_000]);
  const workloads: Workload[] = [];
  for (const keyType of ['url', 'binary'] as const) {
    for (const n of ns) for (const fpr of [0.01, 0.001]) workloads.push({ keyType, n, fpr });
  }
  return {
    mode,
    workloads,
    repetitions,
    // 3.5 s lets every bloomkit kind (the scalable one adds about 0.5 M keys/s) fill 10^6 keys.
    fillBudgetMs: mode === 'quick' ? 3_500 : 20_000,
    probeBudgetMs: mode === 'quick' ? 350 : 3_000,
    // Quick: 2·10^5 absent keys give ±7% on a 0.1% rate (200 expected hits); full: 10^6.
    absentKeys: mode === 'quick' ? 200_000 : 1_000_000,
    concurrency,
  };
}

/**
 * The contenders that take this workload's keys. The exact Set and the hash floor do not depend on p: they run
 * with the first target only.
 */
export function contendersFor(workload: Workload, firstFpr: number): Contender[] {
  return CONTENDERS.filter(
    (c) =>
      (workload.keyType === 'url' || c.binary) &&
      (workload.fpr === firstFpr || (c.library !== 'Set' && c.library !== 'hash only')),
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
