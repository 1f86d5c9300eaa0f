import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, goldenKeys, urlKeys } from '@bloomkit/testkit';
import { WindowBloomFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'WindowBloomFilter',
  deserialize: (bytes) => WindowBloomFilter.deserialize(bytes, { clock: () => 1_700_000_100_000 }),
  fromJSON: (json) => WindowBloomFilter.fromJSON(json, { clock: () => 1_700_000_100_000 }),
  firstOperation: (filter: WindowBloomFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
    filter.reach();
    filter.expectedFpr();
  },
  heldBytes: (filter: WindowBloomFilter) => filter.bits / 8,
  errorClass: BloomError,
  crc32c,
  samples: () => {
    const count = WindowBloomFilter.create(50, 0.05, { seed: 3 });
    count.addAll(urlKeys(300, 'fuzz'));
    let now = 1_700_000_000_000;
    const timed = WindowBloomFilter.create(30, 0.01, { seed: 7, duration: 10_000, clock: () => now });
    for (const key of goldenKeys()) {
      now += 97;
      timed.add(key);
    }
    return [count.serialize(), timed.serialize(), WindowBloomFilter.create(1, 0.5).serialize()];
  },
});
