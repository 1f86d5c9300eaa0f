import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from '@bloomkit/core';
import { BinaryFuseFilter, fuseLayout } from '@bloomkit/fuse';
import { prng, urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterNotFoundError, RedisBloomFilter } from '../src/index.js';

// A binary fuse filter in Redis: a fixed set, imported whole and read through both doors (the Node client's script
// and the function library share lua/fuse.lua), each checked against the local BinaryFuseFilter.

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
  await RedisBloomFilter.installFunctions(client);
});
afterAll(async () => stop?.());

/** The functions' 0/1 answers as booleans, in calls of `per` items. */
async function fcallExists(name: string, keys: readonly string[], per = 2_000): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let at = 0; at < keys.length; at += per) {
    const reply = (await client.call(
      'FCALL_RO',
      'bk_mexists',
      '1',
      name,
      ...keys.slice(at, at + per),
    )) as number[];
    out.push(...reply.map((answer) => answer === 1));
  }
  return out;
}

/** The error message of a call that must fail. */
async function refusalOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the call was not refused');
}

describe('a binary fuse filter in Redis', () => {
  for (const fingerprintBits of [8, 16] as const) {
    it(`${fingerprintBits}-bit fingerprints: Node and the functions answer as the local filter, and export gives its bytes`, async () => {
      const keys = urlKeys(20_000, `fuse${fingerprintBits}`);
      // Repeats in the input: the set's size (the layout's) is the keys given, its count the distinct ones.
      const local = BinaryFuseFilter.build([...keys, ...keys.slice(0, 500)], { fingerprintBits, seed: 11 });
      const name = `fuse-${fingerprintBits}`;
      const node = await RedisBloomFilter.import(client, name, local.serialize());
      const absent = urlKeys(60_000, `absent${fingerprintBits}`);
      const asked = [...keys, ...absent];
      const expected = local.hasMany(asked);
      expect(expected.slice(0, keys.length).every(Boolean)).toBe(true);
      // Some absent keys answer present (2^-f): the doors must give those too.
      const falsePositives = expected.slice(keys.length).filter(Boolean).length;
      if (fingerprintBits === 8) expect(falsePositives).toBeGreaterThan(100);
      expect(await node.hasMany(asked)).toEqual(expected);
      expect(await fcallExists(name, asked)).toEqual(expected);
      for (const key of [keys[0]!, absent[0]!, keys[19_999]!]) {
        expect(await client.call('FCALL_RO', 'bk_exists', '1', name, key)).toBe(local.has(key) ? 1 : 0);
        expect(await node.has(key)).toBe(local.has(key));
      }
      expect(await node.count()).toBe(20_000);
      expect(await client.call('FCALL_RO', 'bk_card', '1', name)).toBe(20_000);
      expect(await node.export()).toEqual(local.serialize());
      const reopened = await RedisBloomFilter.open(client, name);
      expect(await reopened.hasMany(absent.slice(0, 5_000))).toEqual(expected.slice(20_000, 25_000));
      await node.drop();
    });
  }

  it("bk_info gives the set's segments and seed as reference() does", async () => {
    const local = BinaryFuseFilter.build(urlKeys(3_000, 'info'), { seed: 3 });
    const node = await RedisBloomFilter.import(client, 'fuse-info', local.serialize());
    const reply = (await client.call('FCALL_RO', 'bk_info', '1', 'fuse-info')) as unknown[];
    const info = new Map<string, unknown>();
    for (let i = 0; i < reply.length; i += 2) info.set(String(reply[i]), reply[i + 1]);
    const reference = local.reference();
    expect(info.get('Kind')).toBe('fuse');
    expect(info.get('Capacity')).toBe(3_000);
    expect(info.get('Number of items inserted')).toBe(3_000);
    expect(info.get('Bits')).toBe(local.bits);
    expect(info.get('Hashes')).toBe(3);
    expect(info.get('Seed')).toBe(3);
    expect(info.get('Error rate')).toBe('0.00390625');
    expect(info.get('Fingerprint bits')).toBe(8);
    expect(info.get('Segment length')).toBe(reference.segmentLength);
    expect(info.get('Segment count')).toBe(reference.segmentCount);
    expect(info.get('Fuse seed')).toBe(reference.seed.toString(16).padStart(16, '0'));
    await node.drop();
  });

  it("bk_positions gives a member's fingerprint and three slots: the XOR of its slots is its fingerprint", async () => {
    for (const bits of [8, 16] as const) {
      const keys = urlKeys(2_000, `positions-${bits}`);
      const local = BinaryFuseFilter.build(keys, { seed: 6, fingerprintBits: bits });
      const name = `fuse-positions-${bits}`;
      const node = await RedisBloomFilter.import(client, name, local.serialize());
      const payload = local.payloadParts()[0]!;
      const slot = (i: number) => (bits === 8 ? payload[i]! : payload[2 * i]! | (payload[2 * i + 1]! << 8));
      for (const key of keys.slice(0, 50)) {
        const [fp, a, b, c] = (await client.call('FCALL_RO', 'bk_positions', '1', name, key)) as number[];
        expect(fp! >= 0 && fp! < 2 ** bits).toBe(true);
        expect((slot(a!) ^ slot(b!) ^ slot(c!)) >>> 0).toBe(fp);
      }
      await node.drop();
    }
  });

  it('the set is fixed: every add is refused through both doors and nothing changes', async () => {
    const local = BinaryFuseFilter.build(urlKeys(2_000, 'fixed'));
    const node = await RedisBloomFilter.import(client, 'fuse-fixed', local.serialize());
    await expect(node.add('new')).rejects.toThrow(InvalidArgumentError);
    await expect(node.addMany(['new', 'other'])).rejects.toThrow(/fuse filter, a fixed set/);
    await expect(node.delete('x')).rejects.toThrow(/only counting and cuckoo filters delete/);
    for (const [verb, args] of [
      ['bk_add', ['new']],
      ['bk_madd', ['new', 'other']],
      ['bk_insert', ['ITEMS', 'new']],
      ['bk_del', ['x']],
      ['bk_count', ['x']],
    ] as const) {
      const message = await refusalOf(client.call('FCALL', verb, '1', 'fuse-fixed', ...args));
      expect(message).toMatch(/fuse filter|fixed set|counting or cuckoo|cuckoo filter/);
    }
    expect(
      await refusalOf(client.call('FCALL', 'bk_reserve', '1', 'fuse-new', 'fuse', '100', '0.01')),
    ).toMatch(/kind fuse is created by @bloomkit\/redis or bloomkit push/);
    expect(await node.export()).toEqual(local.serialize());
    expect(await node.count()).toBe(2_000);
    await expect(
      RedisBloomFilter.create(client, 'fuse-created', { kind: 'fuse', capacity: 100, fpr: 0.01 }),
    ).rejects.toThrow(/built from its keys, not created empty/);
    expect(await client.exists('bloomkit:{fuse-created}:meta')).toBe(0);
    await node.drop();
  });

  it('refuses to import a set of 64-bit caller hashes or an empty set, writing nothing', async () => {
    const hashes = BigUint64Array.from([1n, 2n, 3n, 2n ** 63n]);
    const ofHashes = BinaryFuseFilter.fromHashes(hashes);
    await expect(RedisBloomFilter.import(client, 'fuse-hashes', ofHashes.serialize())).rejects.toThrow(
      /caller's 64-bit hashes/,
    );
    const empty = BinaryFuseFilter.build([]);
    await expect(RedisBloomFilter.import(client, 'fuse-empty', empty.serialize())).rejects.toThrow(
      /holds no key/,
    );
    expect(await client.keys('bloomkit:{fuse-hashes}*')).toEqual([]);
    expect(await client.keys('bloomkit:{fuse-empty}*')).toEqual([]);
  });

  it('a set whose fingerprints are gone is never answered as empty', async () => {
    const local = BinaryFuseFilter.build(urlKeys(1_000, 'gone'));
    const node = await RedisBloomFilter.import(client, 'fuse-gone', local.serialize());
    const [data] = await client.keys('bloomkit:{fuse-gone}:data:*');
    await client.del(data!);
    await expect(node.has('x')).rejects.toThrow(FilterNotFoundError);
    expect(await refusalOf(client.call('FCALL_RO', 'bk_exists', '1', 'fuse-gone', 'x'))).toMatch(
      /no longer exists|gone/,
    );
    await node.drop();
  });

  it('a call is priced before it reads: more items than the budget holds are refused whole', async () => {
    const local = BinaryFuseFilter.build(urlKeys(1_000, 'budget'));
    const node = await RedisBloomFilter.import(client, 'fuse-budget', local.serialize());
    const many = urlKeys(6_000, 'budget-many');
    expect(await refusalOf(client.call('FCALL_RO', 'bk_mexists', '1', 'fuse-budget', ...many))).toMatch(
      /more than the 50000 one call may take/,
    );
    expect(await fcallExists('fuse-budget', many.slice(0, 2_500), 2_500)).toEqual(
      local.hasMany(many.slice(0, 2_500)),
    );
    await node.drop();
  });

  it("the server's segments of a set are fuseLayout's, size by size", async () => {
    // The rules of lua/fuse.lua run alone: base.lua and fuse.lua, then the layout of every size asked.
    const lua = ['base', 'fuse'].map((module) =>
      readFileSync(new URL(`../lua/${module}.lua`, import.meta.url), 'utf8'),
    );
    const body = `takeLibraries()
local out = {}
for i = 1, #ARGV do
  local L, c = fuse.layout(tonumber(ARGV[i]))
  out[i] = L .. ':' .. c
end
return out`;
    const sizes = new Set<number>();
    for (let n = 0; n <= 3_000; n++) sizes.add(n);
    // Around each segment length's first size (L doubles where ln(n) / ln(3.33) + 2.25 crosses an integer).
    for (let j = 0; j <= 20; j++) {
      const edge = Math.round(3.33 ** (j - 2.25));
      for (let d = -40; d <= 40; d++) if (edge + d > 0 && edge + d < 2 ** 32) sizes.add(edge + d);
    }
    const random = prng(7);
    for (let i = 0; i < 4_000; i++) sizes.add(Math.floor(2 ** ((32 * random()) / 2 ** 32)));
    // Where the reference's uint32 capacity wraps (size × 1.125 past 2^32) and its first segment count goes below 0.
    const wrap = Math.ceil(2 ** 32 / 1.125);
    for (let d = -40; d <= 40; d++) sizes.add(wrap + d);
    for (let i = 0; i < 200; i++) sizes.add(wrap + Math.floor((random() / 2 ** 32) * (2 ** 32 - wrap)));
    sizes.add(2 ** 32 - 1);
    const list = [...sizes];
    const reply: string[] = [];
    for (let at = 0; at < list.length; at += 2_000) {
      const args = list.slice(at, at + 2_000).map(String);
      reply.push(...((await client.eval(`${lua.join('\n')}\n${body}`, 0, ...args)) as string[]));
    }
    const expected = list.map((n) => {
      const layout = fuseLayout(n);
      return `${layout.segmentLength}:${layout.segmentCount}`;
    });
    expect(reply).toEqual(expected);
  });
});
