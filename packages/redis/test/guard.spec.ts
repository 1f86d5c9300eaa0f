import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterNotFoundError, RedisBloomFilter, type RedisFilterOptions } from '../src/index.js';

let client: Redis;
let other: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
  other = client.duplicate();
});
afterAll(async () => {
  other?.disconnect();
  await stop?.();
});

const KINDS: RedisFilterOptions[] = [
  { kind: 'standard', capacity: 5_000, fpr: 0.01 },
  { kind: 'partitioned', capacity: 5_000, fpr: 0.01 },
  { kind: 'counting', capacity: 5_000, fpr: 0.01 },
  { kind: 'counting', capacity: 5_000, fpr: 0.01, counterBits: 8 },
  { kind: 'blocked', capacity: 50_000, fpr: 0.01, shards: 5 },
  { kind: 'scalable', capacity: 500, fpr: 0.01 },
  { kind: 'cuckoo', capacity: 5_000, fpr: 0.01 },
];

const label = (o: RedisFilterOptions) => `${o.kind}${o.counterBits ? ` ${o.counterBits}-bit` : ''}`;

/** Every key of the filter `name` in Redis, whatever its generation. */
async function keysOf(name: string): Promise<string[]> {
  const found = [
    ...(await client.keys(`bloomkit:{${name}}:*`)),
    ...(await client.keys(`bloomkit:{${name}/*`)),
  ];
  return found.sort();
}

/** Expects every operation of `filter` to fail with FilterNotFoundError, and to leave no key behind. */
async function expectGone(filter: RedisBloomFilter, name: string): Promise<void> {
  const keys = urlKeys(600, `gone-${name}`);
  await expect(filter.addMany(keys)).rejects.toThrow(FilterNotFoundError);
  await expect(filter.add('one-more')).rejects.toThrow(FilterNotFoundError);
  await expect(filter.has('one-more')).rejects.toThrow(FilterNotFoundError);
  await expect(filter.hasMany(keys)).rejects.toThrow(FilterNotFoundError);
  await expect(filter.export()).rejects.toThrow(FilterNotFoundError);
  await expect(filter.count()).rejects.toThrow(FilterNotFoundError);
  if (filter.kind === 'counting')
    await expect(filter.delete('one-more')).rejects.toThrow(FilterNotFoundError);
  // No add wrote a key the filter does not own: not its storage, not a meta hash holding only `count`.
  expect(await keysOf(name)).toEqual([]);
}

describe('a filter that expired or was dropped', () => {
  for (const options of KINDS) {
    it(`${label(options)}: after its TTL, every operation fails with FilterNotFoundError; the name is free again`, async () => {
      const name = `ttl-${label(options)}`;
      const filter = await RedisBloomFilter.create(client, name, { ...options, ttl: 1 });
      expect((await filter.addMany(urlKeys(300, name))).every(Boolean)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      await expectGone(filter, name);
      const again = await RedisBloomFilter.create(client, name, options);
      expect(await again.add('fresh')).toBe(true);
      expect(await again.count()).toBe(1);
      await again.drop();
    });

    it(`${label(options)}: after another client's drop, the same; a new filter of the name is never written by the old handle`, async () => {
      const name = `drop-${label(options)}`;
      const filter = await RedisBloomFilter.create(client, name, options);
      const keys = urlKeys(300, name);
      expect((await filter.addMany(keys)).every(Boolean)).toBe(true);
      await (await RedisBloomFilter.open(other, name)).drop();
      await expectGone(filter, name);

      const successor = await RedisBloomFilter.create(other, name, options);
      await expect(filter.addMany(keys)).rejects.toThrow(FilterNotFoundError);
      expect((await successor.hasMany(keys)).some(Boolean)).toBe(false);
      expect(await successor.count()).toBe(0);
      // The old handle's drop leaves the new filter alone.
      await filter.drop();
      expect(await successor.add('still-here')).toBe(true);
      await successor.drop();
      expect(await keysOf(name)).toEqual([]);
    });
  }
});

describe('a filter whose key another client overwrote with another type', () => {
  it.each([
    ['standard', { kind: 'standard', capacity: 1_000, fpr: 0.01 }],
    ['counting', { kind: 'counting', capacity: 1_000, fpr: 0.01 }],
    ['cuckoo', { kind: 'cuckoo', capacity: 1_000, fpr: 0.01 }],
  ] as const)(
    '%s: adds and deletes fail with a FormatError naming the filter, not a raw WRONGTYPE',
    async (kind, options) => {
      const name = `wrongtype-${kind}`;
      const filter = await RedisBloomFilter.create(client, name, options as RedisFilterOptions);
      const [data] = (await client.keys(`bloomkit:{${name}}:data:*`)) as [string];
      await client.del(data);
      await client.rpush(data, 'not a filter');
      for (const call of [
        filter.add('one'),
        filter.addMany(urlKeys(100, 'wrongtype')),
        ...(kind === 'standard' ? [] : [filter.delete('one')]),
      ]) {
        await expect(call).rejects.toThrow(
          new RegExp(
            `a key of the filter "${name}" holds a Redis value of another type .*nothing was written`,
          ),
        );
      }
      expect(await client.lrange(data, 0, -1)).toEqual(['not a filter']);
      await filter.drop();
    },
  );
});
