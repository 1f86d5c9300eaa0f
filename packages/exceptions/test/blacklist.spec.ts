import { StandardBloomFilter } from '@bloomkit/standard';
import { urlKeyChunks, yieldToRunner } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';
import { ExceptionFilter } from '../src/index.js';

// The brief's blacklist at a scale this machine holds: 10^6 unsafe URLs at p = 10^-4 (m ≈ 19.2 bits per key,
// k = 13), probed with 10^7 known-good URLs. Every good URL the filter flags becomes an exception; then no good URL
// is reported present and no blacklisted URL absent, before and after a serialize round trip.
const BLACKLIST = 1_000_000;
const GOOD = 10_000_000;
const CHUNK = 100_000;

/** Counts the keys of a stream `has` answers `expected` for, a chunk at a time, letting the runner breathe. */
async function countAnswers(
  filter: ExceptionFilter,
  count: number,
  namespace: string,
  seed: number,
  answer: boolean,
  each?: (key: string) => void,
): Promise<number> {
  let matching = 0;
  for (const chunk of urlKeyChunks(count, namespace, seed, CHUNK)) {
    const answers = filter.hasMany(chunk);
    for (let i = 0; i < chunk.length; i++) {
      if (answers[i] === answer) {
        matching++;
        each?.(chunk[i]!);
      }
    }
    await yieldToRunner();
  }
  return matching;
}

describe('a blacklist of 10^6 URLs at p = 10^-4 with its known false positives as exceptions', () => {
  it('blocks every blacklisted URL and no good one, before and after a round trip', async () => {
    const filter = ExceptionFilter.wrap(StandardBloomFilter.create(BLACKLIST, 1e-4, { seed: 11 }));
    for (const chunk of urlKeyChunks(BLACKLIST, 'unsafe', 1, CHUNK)) {
      filter.addAll(chunk);
      await yieldToRunner();
    }
    // m/n ≈ −ln p / (ln 2)^2 = 19.17 bits per key; k ≈ 13.3 (bloomkit takes the k that minimises the rate at m).
    expect(filter.bits / BLACKLIST).toBeCloseTo(19.17, 1);
    expect([13, 14]).toContain(filter.hashes);

    // The crawl: every good URL the filter flags is confirmed good elsewhere and becomes an exception.
    const flagged = await countAnswers(filter, GOOD, 'good', 2, true, (key) => {
      expect(filter.addException(key)).toBe(true);
    });
    // About p·10^7 = 1,000 false positives: within 4.5 standard deviations of the target (a binomial's sd ≈ 31.6).
    expect(flagged).toBeGreaterThan(1000 - 4.5 * 31.6);
    expect(flagged).toBeLessThan(1000 + 4.5 * 31.6);
    expect(filter.exceptionCount).toBe(flagged);
    console.log(
      `blacklist: ${flagged} exceptions for 10^7 good URLs, ${filter.exceptionBytes} bytes in the file (${(filter.exceptionBytes / flagged).toFixed(1)} per exception), filter ${Math.ceil(filter.bits / 8)} bytes`,
    );

    const check = async (subject: ExceptionFilter) => {
      expect(await countAnswers(subject, GOOD, 'good', 2, true)).toBe(0);
      expect(await countAnswers(subject, BLACKLIST, 'unsafe', 1, false)).toBe(0);
    };
    await check(filter);
    const copy = ExceptionFilter.deserialize(filter.serialize());
    expect(copy.exceptionCount).toBe(flagged);
    await check(copy);
  });
});
