import { urlKeys } from '@bloomkit/testkit';
import { startRedis, startSingle } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVICTION_WARNING,
  FilterNotFoundError,
  RedisBloomFilter,
  type RedisFilterOptions,
} from '../src/index.js';

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

describe('under allkeys-lru eviction', () => {
  it('four clients adding while memory runs out: no acknowledged key is answered absent unless some client was told', async () => {
    const server = await startRedis({ args: ['--maxmemory', '3mb', '--maxmemory-policy', 'allkeys-lru'] });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const clients = Array.from({ length: 5 }, () => new Redis({ port: server.port }));
    try {
      const names = ['evict-a', 'evict-b', 'evict-c', 'evict-d'];
      for (const name of names) {
        await RedisBloomFilter.create(clients[0]!, name, { kind: 'standard', capacity: 40_000, fpr: 0.01 });
      }
      // Keys each client was told are in (addMany resolved), and the filters some client got an error from.
      const acknowledged = new Map<string, string[]>(names.map((name) => [name, []]));
      const told = new Set<string>();
      const writer = async (c: number) => {
        for (let round = 0; round < 40; round++) {
          const name = names[(c + round) % names.length]!;
          const keys = urlKeys(100, `evict-${c}-${round}`);
          try {
            const filter = await RedisBloomFilter.open(clients[c]!, name);
            await filter.addMany(keys);
            acknowledged.get(name)!.push(...keys);
          } catch (error) {
            told.add(name);
            if (!(error instanceof FilterNotFoundError)) throw error;
          }
        }
      };
      // The fifth client fills memory with other keys, so Redis evicts while the four add.
      const filler = (async () => {
        for (let i = 0; i < 400; i++) await clients[4]!.set(`filler:${i}`, 'x'.repeat(20_000));
      })();
      await Promise.all([writer(0), writer(1), writer(2), writer(3), filler]);
      const evicted = Number(/evicted_keys:(\d+)/.exec(await clients[0]!.info('stats'))?.[1]);
      expect(evicted).toBeGreaterThan(0);
      let absentUntold = 0;
      for (const name of names) {
        const keys = acknowledged.get(name)!;
        const answers = await RedisBloomFilter.open(clients[0]!, name)
          .then((filter) => filter.hasMany(keys))
          .catch((error: unknown) => {
            if (!(error instanceof FilterNotFoundError)) throw error;
            return undefined; // The filter says it is gone: that is being told.
          });
        if (answers === undefined) continue;
        if (!told.has(name)) absentUntold += answers.filter((present) => !present).length;
      }
      expect(absentUntold).toBe(0);
      // The writers were told of adds (whether their filters then survived the filler or were evicted whole).
      expect([...acknowledged.values()].flat().length + told.size).toBeGreaterThan(0);
      expect(warnings.some((w) => (w as { code?: string }).code === EVICTION_WARNING)).toBe(true);
    } finally {
      process.off('warning', onWarning);
      for (const client of clients) client.disconnect();
      server.kill();
    }
  });
});
