import { StandardBloomFilter } from '@bloomkit/standard';
import { urlKeys } from '@bloomkit/testkit';
import { type RedisProcess, startRedis } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { Redis as Redis5 } from 'ioredis5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter, type RedisClient } from '../src/index.js';

let server: RedisProcess;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.kill());

/** Adds and looks up 3,000 keys and exports: the same answers and bytes as the local filter. */
async function sameAsLocal(client: RedisClient, name: string): Promise<void> {
  const remote = await RedisBloomFilter.create(client, name, {
    kind: 'standard',
    capacity: 10_000,
    fpr: 0.01,
  });
  const local = StandardBloomFilter.create(10_000, 0.01);
  const keys = urlKeys(3000, name);
  expect(await remote.addMany(keys)).toEqual(keys.map((key) => local.add(key)));
  expect(await remote.hasMany(urlKeys(1000, `${name}-absent`))).toEqual(
    local.hasMany(urlKeys(1000, `${name}-absent`)),
  );
  expect(await remote.export()).toEqual(local.serialize());
}

describe("the application's ioredis", () => {
  it('works with an ioredis 5 client (the package has no runtime import of ioredis)', async () => {
    const client = new Redis5({ host: '127.0.0.1', port: server.port });
    try {
      await sameAsLocal(client as unknown as RedisClient, 'five');
    } finally {
      client.disconnect();
    }
  });

  it('honours keyPrefix: every key of the filter gets it, pre-encoded commands included', async () => {
    const client = new Redis({ host: '127.0.0.1', port: server.port, keyPrefix: 'app:' });
    const plain = new Redis({ host: '127.0.0.1', port: server.port });
    try {
      await sameAsLocal(client, 'prefixed');
      const keys = await plain.keys('*prefixed*');
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(key.startsWith('app:bloomkit:{prefixed}')).toBe(true);
    } finally {
      client.disconnect();
      plain.disconnect();
    }
  });
});
