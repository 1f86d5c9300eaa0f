import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, goldenKeys } from '@bloomkit/testkit';
import { BlockedBloomFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'BlockedBloomFilter',
  deserialize: (bytes) => BlockedBloomFilter.deserialize(bytes),
  fromJSON: (json) => BlockedBloomFilter.fromJSON(json),
  firstOperation: (filter: BlockedBloomFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
  },
  heldBytes: (filter: BlockedBloomFilter) => Math.ceil(filter.bits / 8) * 1,
  errorClass: BloomError,
  crc32c,
  samples: () => {
    const full = BlockedBloomFilter.create(100, 0.01, { seed: 7 });
    full.addAll(goldenKeys());
    const small = new BlockedBloomFilter({ bits: 3, hashes: 2 });
    small.add('x');
    return [full.serialize(), small.serialize(), BlockedBloomFilter.create(10, 0.3).serialize()];
  },
});
