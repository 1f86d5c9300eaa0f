import { BlockedBloomFilter } from '@bloomkit/blocked';
import { IncompatibleFiltersError, InvalidArgumentError } from '@bloomkit/core';
import { CountingBloomFilter } from '@bloomkit/counting';
import { createFilter } from '@bloomkit/filters';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { binaryKeys, urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalFilter, RedisBloomFilter, type RedisFilterOptions } from '../src/index.js';

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
});
afterAll(async () => stop?.());

/** The local filter the same options build. */
function localTwin(options: RedisFilterOptions): LocalFilter {
  const { kind, capacity, fpr, seed, counterBits } = options;
  return createFilter(kind, {
    capacity,
    fpr,
    seed: seed as number,
    ...(counterBits === undefined ? {} : { counterBits }),
  }) as LocalFilter;
}

const KINDS: RedisFilterOptions[] = [
  { kind: 'standard', capacity: 5_000, fpr: 0.01, seed: 3 },
  { kind: 'partitioned', capacity: 5_000, fpr: 0.01, seed: 4 },
  { kind: 'counting', capacity: 5_000, fpr: 0.01, seed: 5 },
  { kind: 'counting', capacity: 5_000, fpr: 0.01, seed: 5, counterBits: 8 },
  { kind: 'blocked', capacity: 5_000, fpr: 0.01, seed: 6, shards: 7 },
  { kind: 'scalable', capacity: 500, fpr: 0.01, seed: 7 },
  { kind: 'cuckoo', capacity: 5_000, fpr: 0.01, seed: 8 },
];

/** Keys whose UTF-8 bytes are not their UTF-16 units: non-ASCII, an emoji, lone surrogates (hashed as U+FFFD). */
const NON_ASCII = ['ключ', 'clé-😀', 'lone-\ud800', '\udc00-lone'];

describe('every kind in Redis answers as the local filter and exports its exact bytes', () => {
  for (const [i, options] of KINDS.entries()) {
    it(`${options.kind}${options.counterBits ? ` (${options.counterBits}-bit)` : ''}`, async () => {
      const name = `same-${i}`;
      const remote = await RedisBloomFilter.create(client, name, options);
      const local = localTwin(options);
      const added = [...urlKeys(4_000, `kind${i}`), ...binaryKeys(500, i + 1), ...NON_ASCII];
      // Every added key and as many absent ones: at this fill (about 45%) a fifth of the absent keys have their
      // first two bits set, so both of hasMany's phases answer.
      const probes = [...added, ...urlKeys(3_000, `absent${i}`), 'absent-ключ', 'absent-\udfff'];
      const remoteAnswers = [];
      for (let at = 0; at < added.length; at += 700)
        remoteAnswers.push(...(await remote.addMany(added.slice(at, at + 700))));
      const localAnswers = added.map((key) => local.add(key));
      expect(remoteAnswers).toEqual(localAnswers);
      expect(await remote.add(added[0]!)).toBe(false);
      expect(local.add(added[0]!)).toBe(false);
      expect(await remote.hasMany(probes)).toEqual(local.hasMany(probes));
      const oneCommand = probes.filter((_, j) => j % 40 === 0); // under 256 keys: every bit in one phase
      expect(await remote.hasMany(oneCommand)).toEqual(local.hasMany(oneCommand));
      expect(await remote.has(probes[0]!)).toBe(true);
      expect(await remote.count()).toBe(local.count);
      expect(await remote.export()).toEqual(local.serialize());
      const info = await remote.info();
      expect(info).toMatchObject({ name, kind: options.kind, seed: options.seed, count: local.count });
      if (options.kind === 'scalable') expect(info.filters).toBe((local as ScalableBloomFilter).filterCount);
    });
  }
});

describe('create, open, import, drop', () => {
  it('opens by name from another client; refuses other parameters; never overwrites', async () => {
    const a = await RedisBloomFilter.create(client, 'shared', {
      kind: 'standard',
      capacity: 1000,
      fpr: 0.01,
    });
    await a.add('x');
    const other = client.duplicate();
    try {
      const b = await RedisBloomFilter.open(other, 'shared');
      expect([b.bits, b.hashes, await b.has('x')]).toEqual([a.bits, a.hashes, true]);
      const again = await RedisBloomFilter.create(other, 'shared', {
        kind: 'standard',
        capacity: 1000,
        fpr: 0.01,
      });
      expect(await again.has('x')).toBe(true);
      await expect(
        RedisBloomFilter.create(other, 'shared', { kind: 'standard', capacity: 2000, fpr: 0.01 }),
      ).rejects.toThrow(IncompatibleFiltersError);
      await expect(
        RedisBloomFilter.create(other, 'shared', { kind: 'blocked', capacity: 1000, fpr: 0.01 }),
      ).rejects.toThrow(/exists with other parameters \(kind standard vs blocked\)/);
    } finally {
      other.disconnect();
    }
    await expect(RedisBloomFilter.open(client, 'nothing-here')).rejects.toThrow(
      /no filter named "nothing-here"/,
    );
  });

  it('imports a file of every kind and exports the same bytes; refuses an existing name', async () => {
    const files = [
      StandardBloomFilter.create(2000, 0.01, { seed: 9 }),
      CountingBloomFilter.create(2000, 0.01, { seed: 9, counterBits: 8 }),
      BlockedBloomFilter.create(2000, 0.01, { seed: 9 }),
      ScalableBloomFilter.create(100, 0.01, { seed: 9 }),
    ];
    for (const [i, local] of files.entries()) {
      local.addAll(urlKeys(1500, `import${i}`));
      const bytes = local.serialize();
      const remote = await RedisBloomFilter.import(client, `imported-${i}`, bytes, { shards: 3 });
      expect(await remote.export()).toEqual(bytes);
      expect(await remote.has(urlKeys(1500, `import${i}`)[7]!)).toBe(true);
      await expect(RedisBloomFilter.import(client, `imported-${i}`, bytes)).rejects.toThrow(
        /exists; drop it first/,
      );
    }
    const sixteen = CountingBloomFilter.create(100, 0.01, { counterBits: 16 });
    await expect(RedisBloomFilter.import(client, 'sixteen', sixteen.serialize())).rejects.toThrow(
      /16-bit counters/,
    );
  });

  it('drop removes every key; ttl sets expiry on all of them', async () => {
    const filter = await RedisBloomFilter.create(client, 'temporary', {
      kind: 'blocked',
      capacity: 100_000,
      fpr: 0.01,
      shards: 4,
      ttl: 100,
    });
    const info = await filter.info();
    expect(info.keys).toHaveLength(4);
    for (const key of info.keys) expect(await client.ttl(key)).toBeGreaterThan(90);
    expect(info.ttl).toBeGreaterThan(90);
    await filter.drop();
    expect(await client.exists(...info.keys, 'bloomkit:{temporary}:meta')).toBe(0);
  });

  it("cuts blocked shards to fill the allocator's size classes: a 4 MiB shard takes 4 MiB, not 5", async () => {
    const filter = await RedisBloomFilter.create(client, 'classes', {
      kind: 'blocked',
      bits: 8 * 40 * 2 ** 20,
      hashes: 6,
    });
    const info = await filter.info();
    expect(info.shards).toBe(11);
    for (const key of info.keys.slice(0, -1)) {
      const used = Number(await client.memory('USAGE', key));
      expect(used).toBeLessThan(4 * 2 ** 20 + 1024);
    }
    await filter.drop();
  });

  it('refuses bad arguments with typed errors naming them', async () => {
    await expect(
      RedisBloomFilter.create(client, 'a{b}', { kind: 'standard', capacity: 10, fpr: 0.1 }),
    ).rejects.toThrow(/name must be a string of 1 to 512 characters without '\{' or '\}'/);
    await expect(
      RedisBloomFilter.create(client, 'bad', { kind: 'quotient' as never, capacity: 10, fpr: 0.1 }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      RedisBloomFilter.create(client, 'big', { kind: 'standard', bits: 2 ** 33, hashes: 3 }),
    ).rejects.toThrow(
      /does not fit one Redis string \(at most 2\^32 − 32 bits: 512 MB, Redis's limit, less the 4-byte guard\); use kind 'blocked'/,
    );
    // The largest that fits, and the smallest that does not: refused before anything is written.
    for (const [kind, bits, counterBits] of [
      ['standard', 2 ** 32 - 31, undefined],
      ['counting', 2 ** 29 - 3, 8],
    ] as const) {
      await expect(
        RedisBloomFilter.create(client, 'edge', {
          kind,
          bits,
          hashes: 1,
          ...(counterBits === undefined ? {} : { counterBits }),
        }),
        kind,
      ).rejects.toThrow(/at most 2\^32 − 32 bits/);
    }
    expect(await client.keys('bloomkit:{edge}:*')).toEqual([]);
    const counting = await RedisBloomFilter.create(client, 'deletable', {
      kind: 'counting',
      capacity: 100,
      fpr: 0.01,
    });
    await expect(counting.add(42 as never)).rejects.toThrow(InvalidArgumentError);
    const plain = await RedisBloomFilter.create(client, 'plain', {
      kind: 'standard',
      capacity: 100,
      fpr: 0.01,
    });
    await expect(plain.delete('x')).rejects.toThrow(/only counting and cuckoo filters delete/);
  });
});

describe('counting deletes in Redis', () => {
  it('delete matches CountingBloomFilter.delete, key for key, and never creates a false negative', async () => {
    const remote = await RedisBloomFilter.create(client, 'counting-delete', {
      kind: 'counting',
      capacity: 300,
      fpr: 0.05,
      seed: 1,
    });
    const local = CountingBloomFilter.create(300, 0.05, { seed: 1 });
    const keys = urlKeys(600, 'del');
    await remote.addMany(keys);
    local.addAll(keys);
    await remote.addMany(keys.slice(0, 100));
    local.addAll(keys.slice(0, 100));
    // Deleting a never-added key that is a false positive is the one way to lose keys (documented); delete only
    // added keys and certainly absent ones.
    const absent = urlKeys(200, 'never').filter((key) => !local.has(key));
    const removed = [...keys.slice(0, 300), ...absent];
    expect(await remote.deleteMany(removed)).toEqual(removed.map((key) => local.delete(key)));
    expect(await remote.hasMany(keys)).toEqual(local.hasMany(keys));
    for (const key of keys.slice(300)) expect(local.has(key)).toBe(true);
    expect(await remote.export()).toEqual(local.serialize());
  });
});

describe('RedisBloomFilter.insert (create if missing, then add)', () => {
  it('creates the filter on first use, adds to it after, and answers as addMany', async () => {
    const options: RedisFilterOptions = { kind: 'blocked', capacity: 10_000, fpr: 0.001, seed: 21 };
    const first = urlKeys(300, 'insert-a');
    expect(await RedisBloomFilter.insert(client, 'inserted', first, options)).toEqual(first.map(() => true));
    const second = [...first.slice(0, 100), ...urlKeys(200, 'insert-b')];
    const answers = await RedisBloomFilter.insert(client, 'inserted', second, options);
    expect(answers.slice(0, 100).every((a) => a === false)).toBe(true);
    expect(answers.slice(100).filter(Boolean).length).toBeGreaterThan(195);
    // The same filter a local twin builds from the same keys, byte for byte.
    const twin = localTwin(options);
    twin.addAll([...first, ...second]);
    const opened = await RedisBloomFilter.open(client, 'inserted');
    expect(await opened.export()).toEqual(twin.serialize());
    await opened.drop();
  });

  it('with noCreate only opens: a missing filter is FilterNotFoundError and nothing is created', async () => {
    await expect(
      RedisBloomFilter.insert(client, 'not-there', ['a'], {
        kind: 'standard',
        capacity: 10,
        fpr: 0.1,
        noCreate: true,
      }),
    ).rejects.toThrow(/no filter named "not-there"/);
    expect(await client.exists('bloomkit:{not-there}:meta')).toBe(0);
    await RedisBloomFilter.create(client, 'there', { kind: 'standard', capacity: 100, fpr: 0.01 });
    expect(
      await RedisBloomFilter.insert(client, 'there', ['a', 'a'], {
        kind: 'standard',
        capacity: 1,
        fpr: 0.5,
        noCreate: true,
      }),
    ).toEqual([true, false]);
    await expect(
      RedisBloomFilter.insert(client, 'there', ['b'], {
        kind: 'standard',
        capacity: 1,
        fpr: 0.5,
        noCreate: 'yes' as never,
      }),
    ).rejects.toThrow('RedisBloomFilter.insert: noCreate must be true or false, got string yes');
    await (await RedisBloomFilter.open(client, 'there')).drop();
  });

  it('refuses a filter of that name with other parameters, adding nothing', async () => {
    await RedisBloomFilter.create(client, 'other-params', { kind: 'standard', capacity: 100, fpr: 0.01 });
    await expect(
      RedisBloomFilter.insert(client, 'other-params', ['x'], { kind: 'standard', capacity: 200, fpr: 0.01 }),
    ).rejects.toThrow(IncompatibleFiltersError);
    const opened = await RedisBloomFilter.open(client, 'other-params');
    expect([await opened.has('x'), await opened.count()]).toEqual([false, 0]);
    await opened.drop();
  });
});
