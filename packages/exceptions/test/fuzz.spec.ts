import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describeDecoderFuzz, goldenKeys, urlKeys } from '@bloomkit/testkit';
import { ExceptionFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'ExceptionFilter',
  deserialize: (bytes) => ExceptionFilter.deserialize(bytes),
  fromJSON: (json) => ExceptionFilter.fromJSON(json),
  firstOperation: (filter: ExceptionFilter) => {
    filter.addAll(['first', 'operation', 'after decode']);
    filter.addException('https://golden.example/0');
  },
  heldBytes: (filter: ExceptionFilter) => Math.ceil(filter.bits / 8) + filter.exceptionBytes,
  errorClass: BloomError,
  crc32c,
  samples: () => {
    const crowded = ExceptionFilter.wrap(new StandardBloomFilter({ bits: 256, hashes: 2, seed: 3 }));
    crowded.addAll(goldenKeys().slice(0, 60));
    for (const key of urlKeys(200, 'fuzz')) crowded.addException(key);
    crowded.addException(Uint8Array.of(0xff, 0x00));
    const chained = ExceptionFilter.wrap(ScalableBloomFilter.create(10, 0.05, { seed: 7 }));
    chained.addAll(goldenKeys().slice(0, 30));
    for (const key of urlKeys(400, 'fuzz-chain')) chained.addException(key);
    return [crowded.serialize(), chained.serialize(), ExceptionFilter.create(1, 0.01).serialize()];
  },
});
