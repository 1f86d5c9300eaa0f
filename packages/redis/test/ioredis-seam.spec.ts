import { createFilter } from '@bloomkit/filters';
import { urlKeys } from '@bloomkit/testkit';
import { startCluster, startSingle } from '@bloomkit/testkit/redis';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../src/client.js';
import { RedisBloomFilter, type RedisFilterOptions } from '../src/index.js';
import { seamOf, usePublicApi } from '../src/ioredis-seam.js';

let single: Redis;
let cluster: Cluster;
let port = 0;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const one = await startSingle();
  const many = await startCluster(3);
  ({ client: single } = one);
  ({ client: cluster } = many);
  port = one.server.port;
  stops.push(one.stop, many.stop);
});
afterAll(async () => {
  for (const stop of stops) await stop();
});

const OPTIONS: RedisFilterOptions[] = [
  { kind: 'standard', capacity: 3000, fpr: 0.01, seed: 1 },
  { kind: 'counting', capacity: 3000, fpr: 0.01, seed: 2, counterBits: 8 },
  { kind: 'blocked', capacity: 3000, fpr: 0.01, seed: 3, shards: 3 },
];

/** Fills a filter on `client` and checks it against the local filter built from the same keys. */
async function sameAsLocal(client: RedisClient, name: string, options: RedisFilterOptions): Promise<void> {
  const remote = await RedisBloomFilter.create(client, name, options);
  const { kind, capacity, fpr, seed, counterBits } = options;
  const local = createFilter(kind, {
    capacity,
    fpr,
    seed: seed as number,
    ...(counterBits ? { counterBits } : {}),
  });
  const keys = urlKeys(2000, name);
  expect(await remote.addMany(keys)).toEqual(keys.map((key) => local.add(key)));
  const probes = [...keys.slice(0, 200), ...urlKeys(800, `${name}-absent`)];
  expect(await remote.hasMany(probes)).toEqual(local.hasMany(probes));
  if (kind === 'counting') expect(await remote.delete(keys[0]!)).toBe(true);
  else expect(await remote.export()).toEqual(local.serialize());
  await remote.drop();
}

describe('the ioredis seam', () => {
  it('uses pre-encoded commands on a plain client and a cluster client, where the internals are as expected', () => {
    // (A run with BLOOMKIT_REDIS_PUBLIC_API=1, the whole suite on the public path, sees that path here.)
    const expected = process.env.BLOOMKIT_REDIS_PUBLIC_API === '1' ? 'public' : 'pre-encoded';
    expect(seamOf(single).kind).toBe(expected);
    expect(seamOf(cluster).kind).toBe(expected);
  });

  it('falls back to the public API when the internals are not as expected', () => {
    const noOptions = { options: 5, call: single.call } as unknown as RedisClient;
    expect(seamOf(noOptions).kind).toBe('public');
    const badPrefix = { options: { keyPrefix: 7 }, call: single.call } as unknown as RedisClient;
    expect(seamOf(badPrefix).kind).toBe('public');
    const noCommand = { options: {}, call: () => ({}) } as unknown as RedisClient;
    expect(seamOf(noCommand).kind).toBe('public');
    const throws = {
      options: {},
      call: () => {
        throw new Error('changed');
      },
    } as unknown as RedisClient;
    expect(seamOf(throws).kind).toBe('public');
  });

  for (const options of OPTIONS) {
    it(`${options.kind}: the public path gives the same answers and bytes, on one node and a cluster`, async () => {
      const plain = single.duplicate();
      const clusterPlain = cluster.duplicate();
      try {
        usePublicApi(plain);
        usePublicApi(clusterPlain);
        await sameAsLocal(single, `seam-fast-${options.kind}`, options);
        await sameAsLocal(plain, `seam-plain-${options.kind}`, options);
        await sameAsLocal(clusterPlain, `seam-cluster-${options.kind}`, options);
        expect(seamOf(plain).kind).toBe('public');
      } finally {
        plain.disconnect();
        clusterPlain.disconnect();
      }
    });
  }

  it('honours the client keyPrefix on both paths', async () => {
    for (const publicApi of [false, true]) {
      const prefixed = new Redis({ port, host: '127.0.0.1', keyPrefix: 'app:' });
      try {
        if (publicApi) usePublicApi(prefixed);
        const filter = await RedisBloomFilter.create(prefixed, `prefixed-${publicApi}`, OPTIONS[0]!);
        await filter.addMany(['a', 'b']);
        expect(await filter.hasMany(['a', 'b', 'c'])).toEqual([true, true, false]);
        const stored = await single.keys(`app:bloomkit:{prefixed-${publicApi}}:*`);
        expect(stored.length).toBeGreaterThanOrEqual(2);
        expect(await single.keys(`bloomkit:{prefixed-${publicApi}}:*`)).toEqual([]);
      } finally {
        prefixed.disconnect();
      }
    }
  });
});
