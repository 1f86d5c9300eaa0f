import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, urlKeys } from '@bloomkit/testkit';
import { BinaryFuseFilter } from '../src/index.js';

describeDecoderFuzz({
  name: 'BinaryFuseFilter',
  deserialize: (bytes) => BinaryFuseFilter.deserialize(bytes, { copy: true }),
  fromJSON: (json) => BinaryFuseFilter.fromJSON(json),
  errorClass: BloomError,
  crc32c,
  samples: () => [
    BinaryFuseFilter.build(urlKeys(300, 'fuzz'), { seed: 7 }).serialize(),
    BinaryFuseFilter.build(urlKeys(40, 'fuzz16'), { fingerprintBits: 16 }).serialize(),
    BinaryFuseFilter.fromHashes(new BigUint64Array([1n, 2n, 3n, 2n ** 64n - 1n])).serialize(),
    BinaryFuseFilter.build([]).serialize(),
  ],
});
