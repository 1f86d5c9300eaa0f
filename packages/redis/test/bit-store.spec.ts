import { StandardBloomFilter } from '@bloomkit/standard';
import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter } from '../src/index.js';

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
});
afterAll(async () => stop?.());

/** How many BITFIELD_RO commands the server has run (INFO commandstats). */
async function lookupCommands(): Promise<number> {
  const stats = await client.info('commandstats');
  return Number(/cmdstat_bitfield_ro:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('hasMany reads in one or two phases by the last lookup’s share of present keys', () => {
  it('reads absent keys in two phases, present ones in one after a mostly present lookup, always as the local filter answers', async () => {
    const options = { kind: 'standard', capacity: 5_000, fpr: 0.01 } as const; // 3,000 keys set a third of its bits
    const remote = await RedisBloomFilter.create(client, 'phases', options);
    const local = StandardBloomFilter.create(options.capacity, options.fpr);
    const present = urlKeys(3_000, 'phases-present');
    const absent = urlKeys(1_000, 'phases-absent');
    await remote.addMany(present);
    local.addAll(present);
    // 1,000 keys are 4 commands of 256 a phase.
    const lookup = async (keys: readonly string[]) => {
      const before = await lookupCommands();
      expect(await remote.hasMany(keys)).toEqual(local.hasMany(keys));
      return (await lookupCommands()) - before;
    };
    expect(await lookup(absent)).toBeGreaterThan(4); // no lookup yet: two phases (the second for the few possible keys)
    expect(await lookup(present.slice(0, 1000))).toBe(8); // the last was mostly absent: two phases of 4
    expect(await lookup(present.slice(1000, 2000))).toBe(4); // the last was all present: one phase
    expect(await lookup(absent)).toBe(4); // still one, from the last's share; it answers the same
    expect(await lookup(absent)).toBeGreaterThan(4); // back to two
    const mixed = [...present.slice(2000, 2850), ...absent.slice(0, 150)]; // 85% present
    await lookup(mixed);
    expect(await lookup(mixed)).toBe(4);
    // A lookup of one command is always one phase and leaves the share as it was.
    expect(await lookup(absent.slice(0, 200))).toBe(1);
    expect(await lookup(absent)).toBe(4);
  });
});
