import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterNotFoundError, RedisBloomFilter, type RedisFilterOptions } from '../src/index.js';

// A filter in Redis is a meta hash and its storage keys; either can go alone (an eviction under allkeys-lru, a DEL,
// an expiry of one key). A Node handle then fails with FilterNotFoundError: it never answers "new" into what is left,
// and never recreates a missing half empty. And an add resolves only once everything it implies is applied.

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
});
afterAll(async () => {
  await stop?.();
});

const BIT_KINDS: RedisFilterOptions[] = [
  { kind: 'standard', capacity: 5_000, fpr: 0.01 },
  { kind: 'partitioned', capacity: 5_000, fpr: 0.01 },
  { kind: 'counting', capacity: 5_000, fpr: 0.01 },
  { kind: 'blocked', capacity: 50_000, fpr: 0.01, shards: 3 },
  { kind: 'standard', capacity: 5_000, fpr: 0.01, exceptions: true },
];

async function rejection(work: Promise<unknown>): Promise<Error> {
  const outcome = await work.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe('the meta hash gone, the storage left', () => {
  for (const options of BIT_KINDS) {
    it(`${options.kind}${options.exceptions ? ' with exceptions' : ''}: a new key is a FilterNotFoundError, never "new" into the orphan`, async () => {
      const name = `orphan-${options.kind}-${options.exceptions ? 'x' : ''}`;
      const filter = await RedisBloomFilter.create(client, name, options);
      const before = urlKeys(50, `${name}-before`);
      expect(await filter.addMany(before)).toEqual(before.map(() => true));
      await client.del(`bloomkit:{${name}}:meta`);
      const error = await rejection(filter.add('a key never added'));
      expect(error).toBeInstanceOf(FilterNotFoundError);
      expect(error.message).toMatch(new RegExp(`RedisBloomFilter.addMany: .*${name}`));
      expect(await rejection(filter.addMany(urlKeys(20, `${name}-after`)))).toBeInstanceOf(
        FilterNotFoundError,
      );
      // Nothing recreated the meta hash.
      expect(await client.exists(`bloomkit:{${name}}:meta`)).toBe(0);
    });
  }
});

describe('the storage gone, the meta hash left', () => {
  it('window: the ring gone is a FilterNotFoundError for add and has, and no ring is recreated', async () => {
    const filter = await RedisBloomFilter.create(client, 'ring-gone', {
      kind: 'window',
      capacity: 300,
      fpr: 0.01,
    });
    const keys = urlKeys(300, 'ring-gone');
    expect((await filter.addMany(keys)).filter(Boolean).length).toBe(300);
    const ring = (await filter.info()).keys.find((key) => key.includes(':data:'))!;
    await client.del(ring);
    expect(await rejection(filter.addMany(keys))).toBeInstanceOf(FilterNotFoundError);
    expect(await rejection(filter.has(keys[0]!))).toBeInstanceOf(FilterNotFoundError);
    expect(await client.exists(ring)).toBe(0);
    // Another handle opened now sees the same.
    expect(await rejection((await RedisBloomFilter.open(client, 'ring-gone')).add('x'))).toBeInstanceOf(
      FilterNotFoundError,
    );
  });

  it('scalable: a sub-filter gone is a FilterNotFoundError, never a restart that answers "new" for old keys', async () => {
    const filter = await RedisBloomFilter.create(client, 'sub-gone', {
      kind: 'scalable',
      capacity: 20,
      fpr: 0.01,
    });
    const keys = urlKeys(100, 'sub-gone');
    await filter.addMany(keys);
    const subs = (await filter.info()).keys.filter((key) => key.includes(':sub:')).sort();
    expect(subs.length).toBeGreaterThan(2);
    await client.del(subs[0]!);
    expect(await rejection(filter.addMany(keys.slice(0, 10)))).toBeInstanceOf(FilterNotFoundError);
    expect(await rejection(filter.hasMany(keys.slice(0, 10)))).toBeInstanceOf(FilterNotFoundError);
    expect(await client.exists(subs[0]!)).toBe(0);
  });
});

describe('an add resolves once its count is applied', () => {
  it('after SCRIPT FLUSH (a restart), add then quit or disconnect leaves the count right', async () => {
    for (const end of ['quit', 'disconnect'] as const) {
      for (const options of BIT_KINDS.slice(0, 4)) {
        const name = `flush-${end}-${options.kind}`;
        await RedisBloomFilter.create(client, name, options);
        const writer = client.duplicate();
        const filter = await RedisBloomFilter.open(writer, name);
        await client.script('FLUSH');
        expect(await filter.add('one key')).toBe(true);
        if (end === 'quit') await writer.quit();
        else writer.disconnect();
        expect(await (await RedisBloomFilter.open(client, name)).count(), `${end} ${options.kind}`).toBe(1);
      }
    }
  });
});
