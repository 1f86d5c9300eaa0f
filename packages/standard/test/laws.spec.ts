import { falsePositiveRate } from '@bloomkit/core';
import { describeFalsePositiveRate, describeFilterLaws, type FilterClass } from '@bloomkit/testkit';
import { StandardBloomFilter } from '../src/index.js';

const Standard: FilterClass<StandardBloomFilter> = {
  name: 'StandardBloomFilter',
  layout: 'standard',
  fromShape: (shape) => new StandardBloomFilter(shape),
  create: (capacity, fpr) => StandardBloomFilter.create(capacity, fpr),
  from: (keys, fpr) => StandardBloomFilter.from(keys, fpr),
  deserialize: (bytes, options) => StandardBloomFilter.deserialize(bytes, options),
  fromJSON: (json) => StandardBloomFilter.fromJSON(json),
  predictedFpr: (filter, n) => falsePositiveRate(filter.bits, n, filter.hashes),
};

describeFilterLaws(Standard);
describeFalsePositiveRate(Standard);
