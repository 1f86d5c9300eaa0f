import { InvalidArgumentError, type SeedOption } from '@bloomkit/core';
import { checkInteger, checkOneOf, checkOpenInterval } from '@bloomkit/core/kit';

/** Slots a bucket may hold. */
export const BUCKET_SIZES = [2, 4, 8] as const;
/** Slots a bucket holds: 2, 4 or 8. */
export type BucketSize = (typeof BUCKET_SIZES)[number];

/** Fingerprint widths a table may have: 4 bits (a rate near 20%) to 24 (near 10^-6). */
export const MIN_FINGERPRINT_BITS = 4;
export const MAX_FINGERPRINT_BITS = 24;

/** The most buckets a table has: bucket numbers are int32s (and 2^31 buckets of the smallest slots are 2 GiB). */
export const MAX_BUCKETS: number = 2 ** 31 - 1;

/** The most bytes a table takes: its byte offsets are int32s. */
export const MAX_TABLE_BYTES: number = 2 ** 31 - 4;

/**
 * Kicks an add makes before it gives up: a walk of this many displaced fingerprints (docs/FORMAT.md §3.9). Measured
 * (first failures of 10^5 to 10^6-key tables, 4-slot buckets): 95.7–96.7% of the slots with 500, 96.6–97.8% with
 * 1000, 97.1–98.0% with 2000; 2-slot buckets near 86%, 8-slot near 99%. Tables of a few hundred buckets vary more
 * (92–98%). 1000 bounds what one refused add costs (in Redis too) at a few milliseconds.
 */
export const MAX_KICKS = 1000;

/**
 * The load a table is sized for at its capacity, per bucket size: below where a walk of {@link MAX_KICKS} starts
 * to fail (Fan et al. 2014, §5.1: 84%, 95%, 98% for buckets of 2, 4, 8), so the capacity's keys go in with room to
 * spare and a few more than the capacity still fit.
 */
export const LOAD_AT_CAPACITY: Readonly<Record<BucketSize, number>> = { 2: 0.8, 4: 0.9, 8: 0.93 };

/** A table's shape: what the params block holds (docs/FORMAT.md §3.9). */
export interface CuckooShape {
  /** f: bits a fingerprint, 4 to 24. */
  readonly fingerprintBits: number;
  /** b: slots a bucket. */
  readonly bucketSize: BucketSize;
  /** n: buckets, any count from 1 (never rounded to a power of two). */
  readonly buckets: number;
}

/**
 * The rate at which a key never added is present when a fraction `load` of the slots hold fingerprints: its
 * fingerprint is compared with the ~2·b·load fingerprints of its two buckets, each equal with probability
 * 1 / (2^f − 1) (fingerprints are uniform over [1, 2^f − 1]): 1 − (1 − 1/(2^f − 1))^(2·b·load).
 */
export function rateAt(shape: Pick<CuckooShape, 'fingerprintBits' | 'bucketSize'>, load: number): number {
  const miss = 1 - 1 / (2 ** shape.fingerprintBits - 1);
  return -Math.expm1(2 * shape.bucketSize * load * Math.log(miss));
}

/**
 * The smallest table that holds `capacity` keys at rate `fpr`: buckets ⌈capacity / (b · load)⌉ at the bucket
 * size's load at capacity (any count, never rounded to a power of two), and the fewest fingerprint bits whose
 * {@link rateAt} that load is at most `fpr`. A rate below what 24-bit fingerprints give is an InvalidArgumentError
 * naming the smallest allowed.
 */
export function planShape(where: string, capacity: unknown, fpr: unknown, bucketSize: unknown): CuckooShape {
  const b = bucketSize === undefined ? 4 : checkOneOf(where, 'bucketSize', bucketSize, BUCKET_SIZES);
  const load = LOAD_AT_CAPACITY[b];
  const n = checkInteger(where, 'capacity', capacity, 1, Math.floor(MAX_BUCKETS * b * load));
  const rate = checkOpenInterval(where, 'fpr', fpr, 0, 1);
  let bits = MIN_FINGERPRINT_BITS;
  while (bits < MAX_FINGERPRINT_BITS && rateAt({ fingerprintBits: bits, bucketSize: b }, load) > rate) bits++;
  const floor = rateAt({ fingerprintBits: MAX_FINGERPRINT_BITS, bucketSize: b }, load);
  if (rateAt({ fingerprintBits: bits, bucketSize: b }, load) > rate) {
    checkOpenInterval(where, 'fpr', rate, floor, 1);
  }
  const buckets = Math.max(1, Math.ceil(n / (b * load)));
  const bytes = Math.ceil((buckets * b * bits) / 8);
  if (bytes > MAX_TABLE_BYTES) {
    throw new InvalidArgumentError(
      `${where}: capacity ${n} at fpr ${rate} needs a table of ${bytes} bytes, past the most a cuckoo filter holds (2 GiB); use a smaller capacity or a larger fpr`,
    );
  }
  return { fingerprintBits: bits, bucketSize: b, buckets };
}

/** What {@link cuckooShape} plans: the table's shape and what it costs. */
export interface CuckooPlan extends CuckooShape {
  /** Bytes of the table. */
  readonly bytes: number;
  /** The table's bits over the capacity. */
  readonly bitsPerKey: number;
  /** The rate at capacity, by the formula ({@link rateAt} at the load the capacity gives). */
  readonly fprAtCapacity: number;
}

/**
 * The table `CuckooFilter.create(capacity, fpr, { bucketSize })` would make, without making it: for a sizing page or
 * a capacity plan. The same typed errors as `create`.
 */
export function cuckooShape(capacity: number, fpr: number, bucketSize?: BucketSize): CuckooPlan {
  const shape = planShape('cuckooShape', capacity, fpr, bucketSize);
  const slots = shape.buckets * shape.bucketSize;
  const bytes = Math.ceil((slots * shape.fingerprintBits) / 8);
  return {
    ...shape,
    bytes,
    bitsPerKey: (slots * shape.fingerprintBits) / capacity,
    fprAtCapacity: rateAt(shape, capacity / slots),
  };
}

/** Options of `CuckooFilter.create` (and `from`). */
export interface CuckooCreateOptions extends SeedOption {
  /** Slots a bucket: 2, 4 (default) or 8. Larger buckets fill further (84%, 95%, 98%) and need a bit more a slot. */
  readonly bucketSize?: BucketSize;
}
