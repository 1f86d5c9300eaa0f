import { BloomError } from '@bloomkit/core';

/**
 * A cuckoo filter had no room for a key: its walk of displaced fingerprints ended without an empty slot. Nothing
 * was changed (every slot the walk moved is put back), so every key added before is still present. A table of
 * 4-slot buckets first refuses a key above 95% of its slots; a key added more than 2·b times (b slots a bucket)
 * is refused at once, its two buckets being full of its own fingerprint.
 */
export class CapacityError extends BloomError {
  constructor(message: string) {
    super(message);
    this.name = 'CapacityError';
  }
}
