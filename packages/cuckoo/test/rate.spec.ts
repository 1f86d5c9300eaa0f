import { upperBoundCount, urlKeyChunks, urlKeys } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { CuckooFilter } from '../src/index.js';

/** Probes of keys never added, per filter. */
const PROBES = 1_000_000;

/** Hits among keys never added, counted a chunk at a time (hasMany). */
function falsePositives(filter: CuckooFilter, namespace: string): number {
  let hits = 0;
  for (const chunk of urlKeyChunks(PROBES, namespace, 1, 100_000)) {
    for (const yes of filter.hasMany(chunk)) if (yes) hits++;
  }
  return hits;
}

// At capacity, the rate a key never added is present at: within the 99.9% bound of the target, and near the
// formula the size was chosen by (cuckoo-shape.ts `rateAt`: fingerprints uniform over [1, 2^f − 1]).
describe('false-positive rate at capacity', () => {
  for (const capacity of [100_000, 300_007, 1_000_000]) {
    for (const fpr of [0.01, 0.001]) {
      it(`${capacity} keys at ${fpr}: within the target's bound, near the formula, no false negative`, () => {
        const filter = CuckooFilter.create(capacity, fpr, { seed: capacity });
        const keys = urlKeys(capacity, `rate-${capacity}`);
        expect(filter.addAll(keys)).toBeGreaterThan(capacity * 0.99);
        expect(filter.hasMany(keys).every(Boolean)).toBe(true);
        const hits = falsePositives(filter, `absent-${capacity}`);
        const formula = filter.expectedFpr();
        expect(formula).toBeLessThanOrEqual(fpr);
        expect(hits).toBeLessThanOrEqual(upperBoundCount(fpr, PROBES));
        expect(hits).toBeLessThanOrEqual(upperBoundCount(formula, PROBES));
        expect(hits).toBeGreaterThanOrEqual(
          PROBES * formula - 3.29 * Math.sqrt(PROBES * formula * (1 - formula)) - 0.5,
        );
      });
    }
  }
});
