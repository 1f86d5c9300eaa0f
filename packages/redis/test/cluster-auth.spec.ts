import { urlKeys } from '@bloomkit/testkit';
import { startCluster } from '@bloomkit/testkit/redis';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter } from '../src/index.js';

/** The ACL user the README documents for a cluster: the single-node user plus the two CLUSTER subcommands ioredis sends. */
const CRAWLER =
  'user crawler on >crawler-secret ~bloomkit:* +@read +@write +evalsha +eval +info +ping +cluster|slots +cluster|info';

let client: Cluster;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startCluster(3, {
    auth: {
      password: 'admin-secret',
      args: ['--user', ...CRAWLER.split(' ').slice(1)],
      clientUser: { user: 'crawler', password: 'crawler-secret' },
    },
  }));
});
afterAll(async () => stop?.());

describe('a 3-node cluster with passwords, as an ACL user with only the documented commands', () => {
  it('creates, fills, reads, exports, grows and drops every kind that spreads over the cluster', async () => {
    for (const [name, options] of [
      ['acl:blocked', { kind: 'blocked', capacity: 20_000, fpr: 0.01, shards: 6 }],
      ['acl:scalable', { kind: 'scalable', capacity: 500, fpr: 0.01 }],
      ['acl:window', { kind: 'window', capacity: 5_000, fpr: 0.01 }],
      ['acl:excepted', { kind: 'standard', capacity: 5_000, fpr: 0.01, exceptions: true }],
    ] as const) {
      const filter = await RedisBloomFilter.create(client, name, options);
      const keys = urlKeys(3_000, name);
      expect((await filter.addMany(keys)).filter(Boolean).length).toBeGreaterThan(2_900);
      expect((await filter.hasMany(keys)).every(Boolean)).toBe(true);
      const copy = await RedisBloomFilter.import(client, `${name}:copy`, await filter.export());
      expect(await copy.export()).toEqual(await filter.export());
      await copy.drop();
      await filter.drop();
    }
  });
});
