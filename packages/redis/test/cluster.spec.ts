import { BlockedBloomFilter } from '@bloomkit/blocked';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { urlKeys } from '@bloomkit/testkit';
import { type RedisProcess, startCluster } from '@bloomkit/testkit/redis';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter, RedisFilterError } from '../src/index.js';

let client: Cluster;
let servers: RedisProcess[];
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, servers, stop } = await startCluster(3, { maxmemory: '64mb' }));
});
afterAll(async () => stop?.());

/** The port of the node serving `key`. */
async function nodeOf(key: string): Promise<number> {
  const slot = await client.cluster('KEYSLOT', key);
  const slots = (await client.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
  return slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
}

describe('on a 3-node cluster', () => {
  it('a blocked filter spreads its shards over every node and answers as the local filter, export included', async () => {
    const remote = await RedisBloomFilter.create(client, 'spread', {
      kind: 'blocked',
      capacity: 200_000,
      fpr: 0.01,
      seed: 2,
      shards: 12,
    });
    const info = await remote.info();
    const nodes = new Set(await Promise.all(info.keys.map(nodeOf)));
    expect(nodes.size).toBe(3);
    const local = BlockedBloomFilter.create(200_000, 0.01, { seed: 2 });
    const keys = urlKeys(20_000, 'cluster');
    const answers: boolean[] = [];
    for (let at = 0; at < keys.length; at += 1000)
      answers.push(...(await remote.addMany(keys.slice(at, at + 1000))));
    expect(answers).toEqual(keys.map((key) => local.add(key)));
    const probes = [...keys.slice(0, 1000), ...urlKeys(5000, 'cluster-absent')];
    expect(await remote.hasMany(probes)).toEqual(local.hasMany(probes));
    expect(await remote.export()).toEqual(local.serialize());
  });

  it('standard and scalable filters live in one slot and work the same', async () => {
    const standard = await RedisBloomFilter.create(client, 'one-slot', {
      kind: 'standard',
      capacity: 10_000,
      fpr: 0.01,
    });
    const scalable = await RedisBloomFilter.create(client, 'growing', {
      kind: 'scalable',
      capacity: 200,
      fpr: 0.01,
    });
    const localStandard = StandardBloomFilter.create(10_000, 0.01);
    const localScalable = ScalableBloomFilter.create(200, 0.01);
    const keys = urlKeys(5000, 'slot');
    expect(await standard.addMany(keys)).toEqual(keys.map((key) => localStandard.add(key)));
    expect(await scalable.addMany(keys)).toEqual(keys.map((key) => localScalable.add(key)));
    expect(await scalable.export()).toEqual(localScalable.serialize());
    expect(new Set(await Promise.all((await scalable.info()).keys.map(nodeOf))).size).toBe(1);
  });

  it('8 clients adding 10^5 keys each, half of them shared, get zero double-accepts', async () => {
    const name = 'race';
    await RedisBloomFilter.create(client, name, {
      kind: 'blocked',
      capacity: 600_000,
      fpr: 0.001,
      shards: 16,
    });
    const shared = urlKeys(50_000, 'shared');
    const clients = Array.from(
      { length: 8 },
      () => new Cluster(servers.map((s) => ({ host: '127.0.0.1', port: s.port }))),
    );
    try {
      const results = await Promise.all(
        clients.map(async (c, i) => {
          const filter = await RedisBloomFilter.open(c, name);
          const mine = [...shared, ...urlKeys(50_000, `own${i}`)];
          // Each client walks the shared keys from a different start, so they collide all the time.
          const order = [...mine.slice(i * 6000), ...mine.slice(0, i * 6000)];
          const accepted = new Map<string, boolean>();
          for (let at = 0; at < order.length; at += 1000) {
            const batch = order.slice(at, at + 1000);
            for (const [j, yes] of (await filter.addMany(batch)).entries()) accepted.set(batch[j]!, yes);
          }
          return accepted;
        }),
      );
      let doubles = 0;
      let none = 0;
      for (const key of shared) {
        const yes = results.filter((accepted) => accepted.get(key)).length;
        if (yes > 1) doubles++;
        if (yes === 0) none++;
      }
      expect(doubles).toBe(0);
      // A shared key nobody was told is new is a false positive: a few at p = 0.001.
      expect(none).toBeLessThan(200);
      const total = results.reduce((n, accepted) => n + [...accepted.values()].filter(Boolean).length, 0);
      expect(await (await RedisBloomFilter.open(client, name)).count()).toBe(total);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });

  it("a blocked filter larger than any node's maxmemory (150 MB over 3 nodes of 64 MB) works", async () => {
    // Many small shards balance the nodes: 1,200 of 128 KiB land about 400 ± 16 on each (slots are a hash).
    const bits = 150 * 8 * 2 ** 20;
    const big = await RedisBloomFilter.create(client, 'big', {
      kind: 'blocked',
      bits,
      hashes: 6,
      shards: 1200,
    });
    const info = await big.info();
    expect(info.bytes).toBe(bits / 8 + 32 * info.keys.length); // Each shard ends with its guard (4 bytes) and shape (28).
    const keys = urlKeys(20_000, 'big');
    expect((await big.addMany(keys)).every(Boolean)).toBe(true);
    expect((await big.hasMany(keys)).every(Boolean)).toBe(true);
    await big.drop();
  });

  it('a node killed mid-run fails the batches that touch it, loses no acknowledged add, and the rest keeps working', async () => {
    const filter = await RedisBloomFilter.create(client, 'survivor', {
      kind: 'blocked',
      capacity: 100_000,
      fpr: 0.01,
      shards: 30,
    });
    const acknowledged: string[] = [];
    const keys = urlKeys(20_000, 'before');
    for (let at = 0; at < keys.length; at += 500) {
      const batch = keys.slice(at, at + 500);
      await filter.addMany(batch);
      acknowledged.push(...batch);
    }
    const victim = servers[2]!;
    victim.kill();
    // Single keys: each touches one shard; those on the dead node fail with our error, the others succeed.
    const after = urlKeys(300, 'after');
    const outcomes = await Promise.allSettled(after.map((key) => filter.add(key)));
    const failed = outcomes.filter((o) => o.status === 'rejected');
    const worked = outcomes.filter((o) => o.status === 'fulfilled');
    expect(failed.length).toBeGreaterThan(0);
    expect(worked.length).toBeGreaterThan(0);
    for (const f of failed) expect((f as PromiseRejectedResult).reason).toBeInstanceOf(RedisFilterError);
    await expect(filter.addMany(urlKeys(1000, 'batch-after'))).rejects.toThrow(
      /Redis commands failed .*bloomkit:\{survivor\//,
    );
    // Every acknowledged key on a live node still answers true; none answers false.
    const checks = await Promise.allSettled(acknowledged.map((key) => filter.has(key)));
    const answeredFalse = checks.filter((c) => c.status === 'fulfilled' && c.value === false).length;
    const answeredTrue = checks.filter((c) => c.status === 'fulfilled' && c.value === true).length;
    expect(answeredFalse).toBe(0);
    expect(answeredTrue).toBeGreaterThan(acknowledged.length / 3);
  });
});
