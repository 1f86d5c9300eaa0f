import { falsePositiveRate } from '@bloomkit/core';
import { describeFalsePositiveRate, describeFilterLaws, type FilterClass } from '@bloomkit/testkit';
import { CountingBloomFilter } from '../src/index.js';

const Counting: FilterClass<CountingBloomFilter> = {
  name: 'CountingBloomFilter',
  layout: 'standard',
  fromShape: (shape) => new CountingBloomFilter(shape),
  create: (capacity, fpr) => CountingBloomFilter.create(capacity, fpr),
  from: (keys, fpr) => CountingBloomFilter.from(keys, fpr),
  deserialize: (bytes, options) => CountingBloomFilter.deserialize(bytes, options),
  fromJSON: (json) => CountingBloomFilter.fromJSON(json),
  predictedFpr: (filter, n) => falsePositiveRate(filter.bits, n, filter.hashes),
};

describeFilterLaws(Counting);
describeFalsePositiveRate(Counting);
