import type { KeyType } from './keys.js';

/** One measurement: one contender on one workload, in a fresh child process. */
export interface Job {
  /** Which repetition this is (0-based): ratios pair the contenders of one repetition. */
  readonly rep: number;
  readonly contender: string;
  readonly keyType: KeyType;
  readonly n: number;
  readonly fpr: number;
  /** Longest a fill may take; a slower contender is stopped and reported as capped. */
  readonly fillBudgetMs: number;
  /** Longest each probe phase (hits, misses, batch) may take. */
  readonly probeBudgetMs: number;
  /** Absent keys generated for the miss phase and the false-positive measurement. */
  readonly absentKeys: number;
}

/** What the child reports. Rates are operations per second; null where the contender has no such call. */
export interface Measurement {
  readonly job: Job;
  /** Keys actually added (less than n when the fill hit its budget). */
  readonly added: number;
  readonly fillCapped: boolean;
  readonly addOps: number;
  readonly hasHitOps: number;
  readonly hasMissOps: number;
  readonly batchHasOps: number | null;
  /** addAll of the present keys in batches of 4,096 into a second, empty instance; null without addAll. */
  readonly batchAddOps: number | null;
  /** Single-key deletes of the present keys from a filled instance; null for contenders that do not delete. */
  readonly deleteOps: number | null;
  /** deleteAll in batches of 4,096 from a filled instance; null without deleteAll. */
  readonly batchDeleteOps: number | null;
  /** False positives / absent keys probed; null when the fill was capped. */
  readonly measuredFpr: number | null;
  readonly absentProbed: number;
  readonly predictedFpr: number | null;
  readonly nominalBitsPerKey: number | null;
  /** The exact Set only: heap growth from building and filling it, per key, in bits. */
  readonly memoryBitsPerKey: number | null;
  readonly serializedBytes: number | null;
  readonly serializeMBps: number | null;
  readonly deserializeMs: number | null;
  /** bloomkit only: deserialize with copy: false and verifyChecksum: false. */
  readonly deserializeInPlaceMs: number | null;
}
