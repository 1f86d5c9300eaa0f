import type { Job, Measurement } from '../src/job.js';

/** A measurement with plausible numbers, for report and goal tests. */
export function measurement(
  contender: string,
  overrides: Partial<Measurement> = {},
  job: Partial<Job> = {},
): Measurement {
  return {
    job: {
      rep: 0,
      contender,
      keyType: 'url',
      n: 1_000_000,
      fpr: 0.01,
      fillBudgetMs: 1000,
      probeBudgetMs: 100,
      absentKeys: 200_000,
      ...job,
    },
    added: 1_000_000,
    fillCapped: false,
    addOps: 1e6,
    hasHitOps: 1e6,
    hasMissOps: 1e6,
    batchHasOps: null,
    batchAddOps: null,
    deleteOps: null,
    batchDeleteOps: null,
    measuredFpr: 0.01,
    absentProbed: 200_000,
    predictedFpr: 0.01,
    nominalBitsPerKey: 9.6,
    memoryBitsPerKey: 9.7,
    serializedBytes: 1_200_000,
    serializeMBps: 800,
    deserializeMs: 1.5,
    deserializeInPlaceMs: null,
    ...overrides,
  };
}
