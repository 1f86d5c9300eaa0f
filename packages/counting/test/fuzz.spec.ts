import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, goldenKeys } from '@bloomkit/testkit';
import { CountingBloomFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'CountingBloomFilter',
  deserialize: (bytes) => CountingBloomFilter.deserialize(bytes),
  fromJSON: (json) => CountingBloomFilter.fromJSON(json),
  firstOperation: (filter: CountingBloomFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
  },
  heldBytes: (filter: CountingBloomFilter) => Math.ceil(filter.bits / 8) * (filter.counterBits ?? 1),
  errorClass: BloomError,
  crc32c,
  samples: () =>
    ([4, 8, 16] as const).map((counterBits, i) => {
      const filter = new CountingBloomFilter({ bits: 50 + i, hashes: 3, seed: 7, counterBits });
      for (const key of goldenKeys().slice(0, 30)) filter.add(key);
      return filter.serialize();
    }),
});
