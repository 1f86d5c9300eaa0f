import { partitionedFalsePositiveRate } from '@bloomkit/core';
import { describeFalsePositiveRate, describeFilterLaws, type FilterClass } from '@bloomkit/testkit';
import { PartitionedBloomFilter } from '../src/index.js';

const Partitioned: FilterClass<PartitionedBloomFilter> = {
  name: 'PartitionedBloomFilter',
  layout: 'partitioned',
  fromShape: (shape) => new PartitionedBloomFilter(shape),
  create: (capacity, fpr) => PartitionedBloomFilter.create(capacity, fpr),
  from: (keys, fpr) => PartitionedBloomFilter.from(keys, fpr),
  deserialize: (bytes, options) => PartitionedBloomFilter.deserialize(bytes, options),
  fromJSON: (json) => PartitionedBloomFilter.fromJSON(json),
  predictedFpr: (filter, n) => partitionedFalsePositiveRate(filter.bits, n, filter.hashes),
};

describeFilterLaws(Partitioned);
describeFalsePositiveRate(Partitioned);
