import { InvalidArgumentError, type Layout } from '@bloomkit/core';

/** Bytes of a block: eight 32-bit words, 256 bits. */
export const BLOCK_BYTES = 32;
/** The smallest bitset a Parquet reader accepts: one block (parquet-format BloomFilter.md, "Sizing"). */
export const MIN_BITSET_BYTES = 32;
/** The largest: 128 MiB, the bound parquet-java, Arrow and DuckDB write and read. */
export const MAX_BITSET_BYTES: number = 128 * 1024 * 1024;

/**
 * The expected false-positive rate of a split-block filter of `blocks` blocks after `keys` distinct values: a value
 * picks a block uniformly (multiply-shift of the hash's high half), so a block holds j values with the Poisson
 * probability of mean λ = keys / blocks; each of its eight words then has j bits set out of 32 at most, and a
 * value never added is reported when its bit in every word is set:
 *
 *   rate = Σ_j Pois(λ; j) · (1 − (31/32)^j)^8
 *
 * (the blocked filter's formula, Putze, Sanders & Singler 2009, with one bit a word; the fixed-point of
 * parquet-format's "the false positive rate is about 1% at 10 bits a value" is this sum). Past λ = 1000 the sum is
 * 1 to double precision.
 */
export function splitBlockFalsePositiveRate(blocks: number, keys: number): number {
  if (keys <= 0) return 0;
  const lambda = keys / blocks;
  if (lambda > 1000) return (-Math.expm1(lambda * Math.log1p(-1 / 32))) ** 8;
  const last = Math.ceil(lambda + 20 * Math.sqrt(lambda) + 50);
  let logPmf = -lambda;
  let sum = 0;
  const logLambda = Math.log(lambda);
  const logMiss = Math.log1p(-1 / 32);
  for (let j = 0; j <= last; j++) {
    if (j > 0) logPmf += logLambda - Math.log(j);
    sum += Math.exp(logPmf) * (-Math.expm1(j * logMiss)) ** 8;
  }
  return Math.min(1, sum);
}

/**
 * The bitset size the Parquet writers choose for `ndv` distinct values at rate `fpp` (parquet-java's
 * `BlockSplitBloomFilter.optimalNumOfBits`, arrow-rs's `optimal_num_of_bytes`, DuckDB's `ParquetBloomFilter`): the
 * standard filter's bits −8·ndv / ln(1 − fpp^(1/8)), in whole bytes, clamped to [32 B, 128 MiB] and rounded up to a
 * power of two. A filter sized so holds about `fpp` or less at `ndv` (the power of two leaves room), though not
 * always: {@link splitBlockFalsePositiveRate} is the exact rate, and `create`'s default sizing follows it.
 */
export function parquetBitsetBytes(ndv: number, fpp: number): number {
  const where = 'parquetBitsetBytes';
  if (!Number.isSafeInteger(ndv) || ndv < 0) {
    throw new InvalidArgumentError(`${where}: ndv must be an integer in [0, 2^53 - 1], got ${String(ndv)}`);
  }
  checkRate(where, 'fpp', fpp);
  const bits = (-8 * ndv) / Math.log1p(-(fpp ** (1 / 8)));
  const bytes = Math.floor(bits / 8);
  return nextPowerOfTwo(Math.min(MAX_BITSET_BYTES, Math.max(MIN_BITSET_BYTES, bytes)));
}

/**
 * The smallest power-of-two bitset, in [32 B, 128 MiB], whose {@link splitBlockFalsePositiveRate} at `capacity`
 * values is at most `fpr`; an InvalidArgumentError when even 128 MiB cannot hold it.
 */
export function bitsetBytesForRate(where: string, capacity: number, fpr: number): number {
  for (let bytes = MIN_BITSET_BYTES; bytes <= MAX_BITSET_BYTES; bytes *= 2) {
    if (splitBlockFalsePositiveRate(bytes / BLOCK_BYTES, capacity) <= fpr) return bytes;
  }
  throw new InvalidArgumentError(
    `${where}: ${capacity} values at rate ${fpr} need more than the largest Parquet bitset (128 MiB, 2^22 blocks)`,
  );
}

/**
 * The bitset `SplitBlockBloomFilter.create(capacity, fpr)` chooses (its default sizing, `'rate'`): the smallest power
 * of two in [32 B, 128 MiB] whose {@link splitBlockFalsePositiveRate} at `capacity` values is at most `fpr`, in bytes.
 * InvalidArgumentError for a capacity that is not a positive safe integer, a rate outside (0, 1), or a capacity
 * 128 MiB cannot hold at that rate.
 */
export function splitBlockBitsetBytes(capacity: number, fpr: number): number {
  const where = 'splitBlockBitsetBytes';
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new InvalidArgumentError(
      `${where}: capacity must be an integer in [1, 2^53 - 1], got ${String(capacity)}`,
    );
  }
  checkRate(where, 'fpr', fpr);
  return bitsetBytesForRate(where, capacity, fpr);
}

/** Throws unless `value` is a number in (0, 1). */
export function checkRate(where: string, parameter: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !(value > 0 && value < 1)) {
    throw new InvalidArgumentError(`${where}: ${parameter} must be a number in (0, 1), got ${String(value)}`);
  }
}

/** The least power of two at or above `n` (n ≥ 1). */
function nextPowerOfTwo(n: number): number {
  let power = 1;
  while (power < n) power *= 2;
  return power;
}

/**
 * The split-block layout as the table of kinds describes a layout: m in whole blocks of 256 bits, the rate above,
 * and the count estimated from the fill (each value sets one bit in each word of its block, so a word's expected
 * fill after λ values a block is 1 − e^(−λ/32): λ = −32·ln(1 − fill)). Its positions are the split-block rule
 * (docs/FORMAT.md §3.7), not §5's: `geometry` refuses.
 */
export const splitBlockLayout: Layout = {
  name: 'split-block',
  bitsUnit: () => BLOCK_BYTES * 8,
  geometry(): never {
    throw new InvalidArgumentError(
      'splitBlockLayout: split-block positions are not §5 positions (FORMAT.md §3.7)',
    );
  },
  falsePositiveRate: (bits: number, keys: number) =>
    splitBlockFalsePositiveRate(bits / (BLOCK_BYTES * 8), keys),
  estimateCount(set: number, bits: number): number {
    if (set === 0) return 0;
    if (set >= bits) return Number.POSITIVE_INFINITY;
    return (-32 * Math.log1p(-set / bits) * bits) / (BLOCK_BYTES * 8);
  },
  maxBits: MAX_BITSET_BYTES * 8,
};

/** Checks a bitset size in bytes: a power of two in [32, 2^27] (InvalidArgumentError naming `numBytes`). */
export function checkBitsetBytes(where: string, numBytes: number): void {
  if (
    !Number.isInteger(numBytes) ||
    numBytes < MIN_BITSET_BYTES ||
    numBytes > MAX_BITSET_BYTES ||
    (numBytes & (numBytes - 1)) !== 0
  ) {
    throw new InvalidArgumentError(
      `${where}: numBytes must be a power of two in [32, 134217728], got ${String(numBytes)}`,
    );
  }
}
