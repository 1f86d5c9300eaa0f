import { blockedFalsePositiveRate } from '@bloomkit/core';
import { describeFalsePositiveRate, describeFilterLaws, type FilterClass } from '@bloomkit/testkit';
import { BlockedBloomFilter } from '../src/index.js';

const Blocked: FilterClass<BlockedBloomFilter> = {
  name: 'BlockedBloomFilter',
  layout: 'blocked',
  fromShape: (shape) => new BlockedBloomFilter(shape),
  create: (capacity, fpr) => BlockedBloomFilter.create(capacity, fpr),
  from: (keys, fpr) => BlockedBloomFilter.from(keys, fpr),
  deserialize: (bytes, options) => BlockedBloomFilter.deserialize(bytes, options),
  fromJSON: (json) => BlockedBloomFilter.fromJSON(json),
  predictedFpr: (filter, n) => blockedFalsePositiveRate(filter.bits, n, filter.hashes),
};

describeFilterLaws(Blocked);
// Capacities 10^3 to 10^7 and p from 10^-1 to 10^-4 (16-byte keys up to 10^5), each against the 99.9% bound of the
// blocked formula over 10^6 absent keys.
describeFalsePositiveRate(Blocked, {
  capacities: [1_000, 10_000, 100_000, 1_000_000, 10_000_000],
  fprs: [0.1, 0.01, 0.001, 0.0001],
  binaryUpTo: 100_000,
});
