import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, goldenKeys } from '@bloomkit/testkit';
import { StandardBloomFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'StandardBloomFilter',
  deserialize: (bytes) => StandardBloomFilter.deserialize(bytes),
  fromJSON: (json) => StandardBloomFilter.fromJSON(json),
  firstOperation: (filter: StandardBloomFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
  },
  heldBytes: (filter: StandardBloomFilter) => Math.ceil(filter.bits / 8) * 1,
  errorClass: BloomError,
  crc32c,
  samples: () => {
    const full = StandardBloomFilter.create(100, 0.01, { seed: 7 });
    full.addAll(goldenKeys());
    const small = new StandardBloomFilter({ bits: 3, hashes: 2 });
    small.add('x');
    return [full.serialize(), small.serialize(), StandardBloomFilter.create(10, 0.3).serialize()];
  },
});
