export { type CommonJsRun, runCommonJs } from './commonjs.js';
export {
  describeFalsePositiveRate,
  describeFilterLaws,
  type FilterClass,
  type FprGrid,
  type LawfulFilter,
} from './filter-laws.js';
export {
  announceFuzz,
  assertInSlices,
  type DecoderUnderFuzz,
  depth,
  describeDecoderFuzz,
  FUZZ,
  impliedBytes,
  TENTH_RUNS,
  yieldToRunner,
} from './fuzz.js';
export { collectionsDuring } from './garbage.js';
export { goldenAbsentKeys, goldenKeys, readGolden } from './golden.js';
export { expectHashBatchesAsSingleKeys, type HashBatchFilter } from './hash-batches.js';
export { binaryKeys, prng, urlKeyChunks, urlKeys } from './keys.js';
export { concat, firstDifference, splitAt } from './parts.js';
export { runQuickStart } from './readme.js';
export {
  CHI2_63_P999,
  chiSquare,
  countHits,
  type FilledShape,
  fprLowerBoundCount,
  fprMoments,
  fprUpperBoundCount,
  occupancyVariance,
  upperBoundCount,
  Z_999,
} from './stats.js';
