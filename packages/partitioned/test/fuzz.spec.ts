import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, goldenKeys } from '@bloomkit/testkit';
import { PartitionedBloomFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'PartitionedBloomFilter',
  deserialize: (bytes) => PartitionedBloomFilter.deserialize(bytes),
  fromJSON: (json) => PartitionedBloomFilter.fromJSON(json),
  firstOperation: (filter: PartitionedBloomFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
  },
  heldBytes: (filter: PartitionedBloomFilter) => Math.ceil(filter.bits / 8) * 1,
  errorClass: BloomError,
  crc32c,
  samples: () => {
    const full = PartitionedBloomFilter.create(100, 0.01, { seed: 7 });
    full.addAll(goldenKeys());
    const small = new PartitionedBloomFilter({ bits: 3, hashes: 2 });
    small.add('x');
    return [full.serialize(), small.serialize(), PartitionedBloomFilter.create(10, 0.3).serialize()];
  },
});
