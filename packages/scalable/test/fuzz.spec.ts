import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, goldenKeys } from '@bloomkit/testkit';
import { ScalableBloomFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'ScalableBloomFilter',
  deserialize: (bytes) => ScalableBloomFilter.deserialize(bytes),
  fromJSON: (json) => ScalableBloomFilter.fromJSON(json),
  firstOperation: (filter: ScalableBloomFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
  },
  heldBytes: (filter: ScalableBloomFilter) => Math.ceil(filter.bits / 8) * 1,
  errorClass: BloomError,
  crc32c,
  samples: () => {
    const grown = ScalableBloomFilter.create(10, 0.05, { seed: 7 });
    grown.addAll(goldenKeys().slice(0, 40));
    return [grown.serialize(), ScalableBloomFilter.create(1, 0.01).serialize()];
  },
});
