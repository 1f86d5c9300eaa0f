import { InvalidArgumentError } from '@bloomkit/core';
import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToyBloomFilter } from '../../filters/test/fixtures/toy-kind.mjs';
import { RedisBloomFilter, redisKindNames } from '../src/index.js';

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
});
afterAll(async () => stop?.());

describe('a kind added by the recipe (one class, one entry in the table of kinds)', () => {
  it('is held in Redis by its record (bits in the standard layout), bit for bit as the local filter', async () => {
    expect(redisKindNames()).toContain('toy');
    const remote = await RedisBloomFilter.create(client, 'toy', {
      kind: 'toy',
      capacity: 2000,
      fpr: 0.01,
      seed: 4,
    });
    const local = ToyBloomFilter.create(2000, 0.01, { seed: 4 });
    const keys = urlKeys(1500, 'toy');
    expect(await remote.addMany(keys)).toEqual(keys.map((key) => local.add(key)));
    expect(await remote.export()).toEqual(local.serialize());
    const reopened = await RedisBloomFilter.open(client, 'toy');
    expect(reopened.kind).toBe('toy');
    const imported = await RedisBloomFilter.import(client, 'toy-copy', local.serialize());
    expect(await imported.export()).toEqual(local.serialize());
    await expect(
      RedisBloomFilter.create(client, 'x', { kind: 'nope', capacity: 1, fpr: 0.1 }),
    ).rejects.toThrow(InvalidArgumentError);
  });
});
