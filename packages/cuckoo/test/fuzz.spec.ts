import { BloomError } from '@bloomkit/core';
import { crc32c } from '@bloomkit/core/kit';
import { describeDecoderFuzz, urlKeys } from '@bloomkit/testkit';
import { CuckooFilter } from '../src/index.js';

function filled(capacity: number, fpr: number, bucketSize: 2 | 4 | 8, keys: number): Uint8Array {
  const filter = CuckooFilter.create(capacity, fpr, { bucketSize, seed: 7 });
  filter.addAll(urlKeys(keys, `fuzz-${bucketSize}`));
  return filter.serialize();
}

describeDecoderFuzz({
  name: 'CuckooFilter',
  deserialize: (bytes) => CuckooFilter.deserialize(bytes, { copy: true }),
  fromJSON: (json) => CuckooFilter.fromJSON(json),
  errorClass: BloomError,
  crc32c,
  // A decoded file's first add may not grow anything: the table is what the file holds.
  firstOperation: (filter: CuckooFilter) => {
    try {
      filter.add('first');
    } catch (error) {
      if (!(error instanceof BloomError)) throw error;
    }
  },
  heldBytes: (filter: CuckooFilter) => Math.ceil(filter.bits / 8),
  samples: () => [
    filled(300, 0.01, 4, 250),
    filled(40, 0.2, 2, 30),
    filled(100, 1e-5, 8, 90),
    CuckooFilter.create(1, 0.5).serialize(),
  ],
});
