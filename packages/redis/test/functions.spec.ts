import {
  blockedLayout,
  chooseShape,
  type Key,
  murmur3x86_128Into,
  partitionedLayout,
  standardLayout,
} from '@bloomkit/core';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { createFilter } from '@bloomkit/filters';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { binaryKeys, depth, urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import { WindowBloomFilter } from '@bloomkit/window';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  functionsSource,
  functionsVersion,
  type LocalFilter,
  RedisBloomFilter,
  type RedisFilterOptions,
} from '../src/index.js';
import { KeyPositions } from '../src/positions.js';
import { label, refusal, reserveArgs } from './clients/support.js';

let client: Redis;
let other: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
  other = client.duplicate();
  await RedisBloomFilter.installFunctions(client);
});
afterAll(async () => {
  other?.disconnect();
  await stop?.();
});

/** Items per call when a test sends more: a client splits its batches within one call's budget (README). */
const ITEMS_PER_CALL = 150;

/**
 * FCALL verb 1 name ...args (FCALL_RO for the read-only verbs). A bk_madd, bk_mexists, bk_madd_at or bk_mexists_at
 * of more than ITEMS_PER_CALL items goes as several calls, one after the other, their answers joined.
 */
async function fcall(
  verb: string,
  name: string,
  ...args: (string | number | Uint8Array)[]
): Promise<unknown> {
  const readOnly = /^bk_(m?exists|mexists_at|card|info|positions)$/.test(verb);
  const wire = args.map((arg) => (arg instanceof Uint8Array ? Buffer.from(arg) : arg));
  const lead = /^bk_m(add|exists)_at$/.test(verb) ? 2 : /^bk_m(add|exists)$/.test(verb) ? 0 : -1;
  if (lead < 0 || wire.length - lead <= ITEMS_PER_CALL) {
    return client.call(readOnly ? 'FCALL_RO' : 'FCALL', verb, '1', name, ...wire);
  }
  const answers: unknown[] = [];
  for (let at = lead; at < wire.length; at += ITEMS_PER_CALL) {
    const batch = [...wire.slice(0, lead), ...wire.slice(at, at + ITEMS_PER_CALL)];
    answers.push(
      ...((await client.call(readOnly ? 'FCALL_RO' : 'FCALL', verb, '1', name, ...batch)) as unknown[]),
    );
  }
  return answers;
}

/** Every key of the filter `name` in Redis, whatever its generation. */
async function keysOf(name: string): Promise<string[]> {
  return (await client.keys(`bloomkit:{${name}}:*`)).sort();
}

const KEY_KINDS = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.uint8Array({ maxLength: 70 }).map((bytes) => bytes as Key),
  fc.constant(''),
  fc.string({ minLength: 200, maxLength: 600 }),
);

describe('hashing on the server is the format’s (docs/FORMAT.md §4)', () => {
  const CHECKS: [string, number, string][] = [
    ['', 0, '00000000 00000000 00000000 00000000'],
    ['hello', 0, '2b2444a0 db91def7 9adb31b6 9adb31b6'],
    ['hello', 42, '9c4f9a01 053404f6 886f9b95 886f9b95'],
    ['The quick brown fox jumps over the lazy dog', 0, '2f1583c3 ecee2c67 5d7bf66c e5e91d2c'],
    ['The quick brown fox jumps over the lazy dog', 0x9747b28c, '8ad4d55e 4cb86171 8ea73a9c cdb6793e'],
    ['0123456789abc', 0, 'c970af1d cc6d9d01 dd00c683 fc11eee3'],
    ['0123456789abcd', 0, '6f34d20a c0a5114d ae0d83c5 63f51794'],
    ['0123456789abcde', 0, '3c76c46d 4d0818c0 add433da a78673fa'],
    ['héllo wörld ✓', 7, '6ceedc7e 3c7e65c2 143928d4 033c435f'],
  ];
  it('gives the check values', async () => {
    for (const [key, seed, words] of CHECKS) {
      const reply = (await client.call('FCALL_RO', 'bk_hash', '0', key, 'SEED', String(seed))) as number[];
      expect(reply.map((w) => w.toString(16).padStart(8, '0')).join(' '), key).toBe(words);
    }
  });

  it('equals the library’s hash for any key and seed (ASCII, non-ASCII, empty, long, binary)', async () => {
    const words = new Uint32Array(4);
    await fc.assert(
      fc.asyncProperty(KEY_KINDS, fc.nat({ max: 0xffffffff }), async (key, seed) => {
        murmur3x86_128Into(key, seed, words);
        const wire = typeof key === 'string' ? key : Buffer.from(key);
        const reply = await client.call('FCALL_RO', 'bk_hash', '0', wire, 'SEED', String(seed));
        expect(reply).toEqual([...words]);
      }),
      { numRuns: depth(300) },
    );
  });
});

describe('positions on the server are the format’s (§5), for every shape', () => {
  it('equal the library’s for random shapes, seeds and keys', async () => {
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('standard', 'partitioned', 'counting'),
        fc.integer({ min: 1, max: 2 ** 26 }),
        fc.integer({ min: 1, max: 64 }),
        fc.nat({ max: 0xffffffff }),
        fc.array(KEY_KINDS, { minLength: 1, maxLength: 5 }),
        async (kind, bits, hashes, seed, keys) => {
          const name = `positions-${serial++}`;
          const filter = await RedisBloomFilter.create(client, name, { kind, bits, hashes, seed });
          const layout = kind === 'partitioned' ? partitionedLayout : standardLayout;
          const expected = new KeyPositions(layout, filter.bits, filter.hashes, seed);
          for (const key of keys) {
            const reply = await fcall('bk_positions', name, key);
            expect(reply).toEqual([...expected.of(key)]);
          }
          await filter.drop();
        },
      ),
      { numRuns: depth(60) },
    );
  });

  it('of a scalable filter, in each sub-filter its shapes list (SUB i), as the local chain’s sub-filters', async () => {
    const name = 'positions-chain';
    const filter = await RedisBloomFilter.create(client, name, {
      kind: 'scalable',
      capacity: 50,
      fpr: 0.01,
      seed: 9,
    });
    const local = ScalableBloomFilter.create(50, 0.01, { seed: 9 });
    local.addAll(urlKeys(2_000, 'grow'));
    expect(local.filterCount).toBeGreaterThan(3);
    const shapes = String(await client.hget(`bloomkit:{${name}}:meta`, 'shapes')).split(' ');
    for (let i = 0; i < local.filterCount; i++) {
      const sub = local.subFilters()[i]!;
      expect(shapes[i]).toBe(`${sub.bits}:${sub.hashes}`);
      const expected = new KeyPositions(partitionedLayout, sub.bits, sub.hashes, 9);
      for (const key of ['hello', ...urlKeys(5, `sub ${i}`)]) {
        expect(await fcall('bk_positions', name, key, 'SUB', String(i))).toEqual([...expected.of(key)]);
      }
    }
    expect(await fcall('bk_positions', name, 'x')).toEqual(
      await fcall('bk_positions', name, 'x', 'sub', '0'),
    );
    expect(await refusal(fcall('bk_positions', name, 'x', 'SUB', String(shapes.length)))).toMatch(
      new RegExp(`bk_positions: SUB must be an integer in \\[0, ${shapes.length - 1}\\]`),
    );
    await RedisBloomFilter.create(client, 'positions-plain', { kind: 'standard', capacity: 10, fpr: 0.01 });
    expect(await refusal(fcall('bk_positions', 'positions-plain', 'x', 'SUB', '0'))).toMatch(
      /SUB applies to a scalable filter; positions-plain is a standard filter/,
    );
    await client.del('bloomkit:{positions-plain}:meta');
    await filter.drop();
  });

  it('reach the top of the largest range a Redis string holds (2^32 − 64 bits) as the library’s do', async () => {
    // bk_positions reads the meta and the guard only: the meta is changed and the guard planted past 512 MB − 8.
    const name = 'positions-top';
    const filter = await RedisBloomFilter.create(client, name, {
      kind: 'standard',
      bits: 64,
      hashes: 9,
      seed: 77,
    });
    const data = (await filter.info()).keys[0]!;
    const bits = 2 ** 32 - 64;
    const guard = await client.getrangeBuffer(data, 8, 11);
    await client.hset(`bloomkit:{${name}}:meta`, 'bits', String(bits));
    await client.del(data);
    await client.setrange(data, bits / 8, guard);
    const expected = new KeyPositions(standardLayout, bits, 9, 77);
    for (const key of ['hello', ...urlKeys(50, 'top')]) {
      expect(await fcall('bk_positions', name, key)).toEqual([...expected.of(key)]);
    }
    await client.del(data, `bloomkit:{${name}}:meta`);
  });
});

/** The local filter that create's options build (what a filter filled through the functions must export). */
function localTwin(o: RedisFilterOptions): LocalFilter {
  return createFilter(o.kind, {
    capacity: o.capacity,
    fpr: o.fpr,
    seed: (o.seed as number | undefined) ?? 0,
    ...(o.counterBits === undefined ? {} : { counterBits: o.counterBits }),
  }) as LocalFilter;
}

const ONE_SLOT: RedisFilterOptions[] = [
  { kind: 'standard', capacity: 3_000, fpr: 0.01, seed: 11 },
  { kind: 'partitioned', capacity: 3_000, fpr: 0.01, seed: 12 },
  { kind: 'counting', capacity: 3_000, fpr: 0.01, seed: 13 },
  { kind: 'counting', capacity: 3_000, fpr: 0.01, seed: 14, counterBits: 8 },
];

describe('one filter, two doors: the functions and the Node client', () => {
  for (const [i, options] of ONE_SLOT.entries()) {
    it(`${label(options)}: reserved through FCALL, filled through both, exports the local filter’s bytes`, async () => {
      const name = `doors-${i}`;
      expect(await fcall('bk_reserve', name, ...reserveArgs(options))).toBe('OK');
      const node = await RedisBloomFilter.create(client, name, options); // same parameters: opens
      const local = localTwin(options);
      expect([node.bits, node.hashes]).toEqual([local.bits, local.hashes]);
      const keys = [...urlKeys(2_000, `doors${i}`), ...binaryKeys(200, i + 1), 'ключ', 'clé-😀', ''];
      const half = keys.length >> 1;
      const viaFunctions = (await fcall('bk_madd', name, ...keys.slice(0, half))) as number[];
      const viaNode = await node.addMany(keys.slice(half));
      const localAnswers = keys.map((key) => local.add(key));
      expect([...viaFunctions.map((a) => a === 1), ...viaNode]).toEqual(localAnswers);
      // Present: answers 0 (a counting filter's counters still go up, as the local filter's do).
      expect(await fcall('bk_add', name, keys[0]!)).toBe(0);
      expect(local.add(keys[0]!)).toBe(false);
      expect(await node.hasMany(keys.slice(0, half))).toEqual(keys.slice(0, half).map(() => true));
      expect(await fcall('bk_mexists', name, ...keys.slice(half))).toEqual(keys.slice(half).map(() => 1));
      const probes = urlKeys(2_000, `absent${i}`);
      const serverSays = ((await fcall('bk_mexists', name, ...probes)) as number[]).map((a) => a === 1);
      expect(serverSays).toEqual(probes.map((key) => local.has(key)));
      expect(await node.export()).toEqual(local.serialize());
      expect(await fcall('bk_card', name)).toBe(local.count);
      expect(await node.count()).toBe(local.count);
      await node.drop();
    });
  }

  it('a filter created from Node is used through the functions, and deletes agree (counting)', async () => {
    const options: RedisFilterOptions = { kind: 'counting', capacity: 2_000, fpr: 0.01, seed: 99 };
    const node = await RedisBloomFilter.create(client, 'doors-node', options);
    const local = localTwin(options);
    const keys = urlKeys(1_500, 'node-first');
    await node.addMany(keys);
    for (const key of keys) local.add(key);
    const gone = keys.slice(0, 500);
    const deleted = (await fcall('bk_mdel', 'doors-node', ...gone, 'never-added')) as number[];
    const localDeleted = [...gone, 'never-added'].map((key) =>
      (local as { delete(k: string): boolean }).delete(key),
    );
    expect(deleted.map((a) => a === 1)).toEqual(localDeleted);
    expect(await fcall('bk_del', 'doors-node', keys[600]!)).toBe(1);
    (local as { delete(k: string): boolean }).delete(keys[600]!);
    expect(await node.export()).toEqual(local.serialize());
    expect(await fcall('bk_mexists', 'doors-node', ...keys.slice(700, 710))).toEqual(Array(10).fill(1));
    expect(await fcall('bk_card', 'doors-node')).toBe(local.count);
    await node.drop();
  });

  it('exceptions: listed keys answer absent through both doors, and add lifts them', async () => {
    const options: RedisFilterOptions = {
      kind: 'standard',
      capacity: 200,
      fpr: 0.2,
      seed: 5,
      exceptions: true,
    };
    expect(await fcall('bk_reserve', 'doors-exc', ...reserveArgs(options))).toBe('OK');
    const node = await RedisBloomFilter.open(client, 'doors-exc');
    const keys = urlKeys(200, 'exc');
    await fcall('bk_madd', 'doors-exc', ...keys);
    const probes = urlKeys(3_000, 'exc-probe');
    const present = (await fcall('bk_mexists', 'doors-exc', ...probes)) as number[];
    const falsePositives = probes.filter((_, j) => present[j] === 1);
    expect(falsePositives.length).toBeGreaterThan(10);
    expect(await fcall('bk_except', 'doors-exc', ...falsePositives, 'surely-absent-key')).toEqual([
      ...falsePositives.map(() => 1),
      0,
    ]);
    expect(await node.hasMany(falsePositives)).toEqual(falsePositives.map(() => false));
    expect(await fcall('bk_mexists', 'doors-exc', ...falsePositives)).toEqual(falsePositives.map(() => 0));
    expect(await node.exceptionCount()).toBe(falsePositives.length);
    expect(await fcall('bk_add', 'doors-exc', falsePositives[0]!)).toBe(1); // lifted: present from now on
    expect(await node.has(falsePositives[0]!)).toBe(true);
    expect(await fcall('bk_unexcept', 'doors-exc', falsePositives[1]!, falsePositives[0]!)).toEqual([1, 0]);
    expect(await node.exceptionCount()).toBe(falsePositives.length - 2);
    // The exceptions file (kind 6) of the local ExceptionFilter that went through the same steps.
    const local = ExceptionFilter.wrap(createFilter('standard', { capacity: 200, fpr: 0.2, seed: 5 }));
    for (const key of keys) local.add(key);
    for (const key of falsePositives) local.addException(key);
    local.add(falsePositives[0]!);
    local.removeException(falsePositives[1]!);
    expect(await node.export()).toEqual(local.serialize());
    await node.drop();
  });
});

describe('scalable filters through the functions: the chain grows on the server', () => {
  const SCALABLE: RedisFilterOptions[] = [
    { kind: 'scalable', capacity: 100, fpr: 0.01, seed: 21 },
    { kind: 'scalable', capacity: 37, fpr: 0.05, seed: 22, growth: 2, tightening: 0.8 },
    { kind: 'scalable', capacity: 1, fpr: 0.3, seed: 23, growth: 1.125, tightening: 0.5 },
  ];
  const localChain = (o: RedisFilterOptions) =>
    ScalableBloomFilter.create(o.capacity!, o.fpr!, {
      seed: o.seed as number,
      ...(o.growth === undefined ? {} : { growth: o.growth }),
      ...(o.tightening === undefined ? {} : { tightening: o.tightening }),
    });

  for (const [i, options] of SCALABLE.entries()) {
    it(`n0 ${options.capacity}, g ${options.growth ?? 1.5}: both doors grow one chain, and it exports the local filter’s bytes`, async () => {
      const name = `chain-${i}`;
      // Reserved on the server for one half of the cases, created from Node for the other: each opens the other's.
      if (i % 2 === 0) expect(await fcall('bk_reserve', name, ...reserveArgs(options))).toBe('OK');
      const node = await RedisBloomFilter.create(client, name, options);
      if (i % 2 === 1) expect(await fcall('bk_reserve', name, ...reserveArgs(options))).toBe('OK');
      const local = localChain(options);
      // n0 = 1 with g = 1.125 chains dozens of sub-filters within a few hundred keys, and each add looks in all.
      const keys = [...urlKeys(i === 2 ? 300 : 1_200, `chain${i}`), ...binaryKeys(100, i + 7), 'ключ', ''];
      // Alternate batches between the doors, so each grows the chain some of the time.
      const answers: boolean[] = [];
      for (let at = 0, b = 0; at < keys.length; at += 97, b++) {
        const batch = keys.slice(at, at + 97);
        if (b % 2 === 0)
          answers.push(...((await fcall('bk_madd', name, ...batch)) as number[]).map((a) => a === 1));
        else answers.push(...(await node.addMany(batch)));
      }
      expect(answers).toEqual(keys.map((key) => local.add(key)));
      expect(local.filterCount).toBeGreaterThan(3);
      expect(await fcall('bk_add', name, keys[5]!)).toBe(0);
      expect(local.add(keys[5]!)).toBe(false);
      const probes = urlKeys(3_000, `chain-absent${i}`);
      const serverSays = ((await fcall('bk_mexists', name, ...probes)) as number[]).map((a) => a === 1);
      expect(serverSays).toEqual(probes.map((key) => local.has(key)));
      expect(await node.hasMany(probes)).toEqual(serverSays);
      expect(await fcall('bk_mexists', name, ...keys.slice(0, 300))).toEqual(keys.slice(0, 300).map(() => 1));
      expect(await node.export()).toEqual(local.serialize());
      expect(await fcall('bk_card', name)).toBe(local.count);
      const info = (await fcall('bk_info', name)) as (string | number)[];
      const field = (label: string) => info[info.indexOf(label) + 1];
      expect(field('Number of filters')).toBe(local.filterCount);
      expect(field('Kind')).toBe('scalable');
      expect(field('Capacity')).toBe(local.subFilters().reduce((sum, sub) => sum + sub.capacity!, 0));
      await node.drop();
      expect(await keysOf(name)).toEqual([]);
    });
  }

  it('an imported chain keeps its sub-filters’ shapes, and the functions grow it further', async () => {
    const local = localChain({ kind: 'scalable', capacity: 50, fpr: 0.02, seed: 31 });
    const keys = urlKeys(900, 'imported');
    for (const key of keys.slice(0, 400)) local.add(key);
    const node = await RedisBloomFilter.import(client, 'chain-imported', local.serialize());
    const added = (await fcall('bk_madd', 'chain-imported', ...keys.slice(400))) as number[];
    expect(added.map((a) => a === 1)).toEqual(keys.slice(400).map((key) => local.add(key)));
    expect(await node.export()).toEqual(local.serialize());
    await node.drop();
  });

  it('concurrent test-and-adds through both doors grow the chain once per step and accept each key once', async () => {
    const options: RedisFilterOptions = { kind: 'scalable', capacity: 20, fpr: 0.01, seed: 41 };
    expect(await fcall('bk_reserve', 'chain-race', ...reserveArgs(options))).toBe('OK');
    const keys = urlKeys(1_000, 'race');
    const node = await RedisBloomFilter.open(other, 'chain-race');
    const viaNode = node.addMany(keys);
    const viaFunctions = Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        fcall('bk_madd', 'chain-race', ...keys.slice(j * 100, j * 100 + 100)),
      ),
    );
    const [a, b] = await Promise.all([viaNode, viaFunctions]);
    const fromFunctions = (b as number[][]).flat();
    const accepted = keys.filter((_, j) => a[j] || fromFunctions[j] === 1);
    const twice = keys.filter((_, j) => a[j] && fromFunctions[j] === 1);
    expect(twice).toEqual([]);
    expect(await fcall('bk_mexists', 'chain-race', ...keys)).toEqual(keys.map(() => 1));
    expect(await fcall('bk_card', 'chain-race')).toBe(accepted.length);
    const exported = ScalableBloomFilter.deserialize(await node.export());
    expect(exported.filterCount).toBe(Number(await client.hget('bloomkit:{chain-race}:meta', 'filters')));
    await node.drop();
  });

  it('a crafted chain in the meta (shapes, filters, counts, growth) is an error reply naming the field, and nothing is written', async () => {
    const options: RedisFilterOptions = { kind: 'scalable', capacity: 10, fpr: 0.01, seed: 51 };
    expect(await fcall('bk_reserve', 'chain-crafted', ...reserveArgs(options))).toBe('OK');
    await fcall('bk_madd', 'chain-crafted', ...urlKeys(30, 'crafted'));
    const meta = 'bloomkit:{chain-crafted}:meta';
    const saved = await client.hgetall(meta);
    const before = await keysOf('chain-crafted');
    const strings = before.filter((key) => !key.endsWith(':meta'));
    const bytesBefore = await Promise.all(strings.map((key) => client.getBuffer(key)));
    const crafted: [string, string, RegExp][] = [
      ['shapes', '', /shapes .*entry 0/],
      ['shapes', '1520:10 x', /shapes .*entry 1/],
      ['shapes', '1521:10', /shapes .*entry 0/],
      ['shapes', '64:65', /shapes .*entry 0/],
      ['shapes', '8589934592:8', /shapes .*entry 0/],
      ['shapes', Array(513).fill('80:8').join(' '), /shapes/],
      ['filters', '0', /filters/],
      ['filters', '999', /filters/],
      ['filters', '2.5', /filters/],
      ['count:0', '-1', /count:0/],
      ['growth', '5', /growth/],
      ['growth', '0x2', /growth/],
      ['tightening', '1', /tightening/],
      ['bits', '1', /bits/],
    ];
    for (const [field, value, named] of crafted) {
      await client.hset(meta, field, value);
      if (field === 'count:0') await client.hset(meta, 'filters', '1');
      expect(await refusal(fcall('bk_madd', 'chain-crafted', 'k1', 'k2'))).toMatch(named);
      if (field !== 'count:0')
        expect(await refusal(fcall('bk_mexists', 'chain-crafted', 'k1'))).toMatch(named);
      await client.del(meta);
      await client.hset(meta, saved);
    }
    await client.hdel(meta, 'shapes');
    expect(await refusal(fcall('bk_add', 'chain-crafted', 'k'))).toMatch(/without its shapes/);
    await client.hset(meta, saved);
    expect(await keysOf('chain-crafted')).toEqual(before);
    expect(await Promise.all(strings.map((key) => client.getBuffer(key)))).toEqual(bytesBefore);
    expect(await fcall('bk_add', 'chain-crafted', 'k1')).toBe(1);
    expect(await client.ping()).toBe('PONG');
    await (await RedisBloomFilter.open(client, 'chain-crafted')).drop();
  });

  it('reserve refuses GROWTH and TIGHTENING outside their ranges and on other kinds, and a first sub-filter past 512 MB', async () => {
    expect(
      await refusal(fcall('bk_reserve', 'chain-bad', 'scalable', '100', '0.01', 'GROWTH', '1.1')),
    ).toMatch(/GROWTH must be a number in \[1\.125, 4\]/);
    expect(
      await refusal(fcall('bk_reserve', 'chain-bad', 'scalable', '100', '0.01', 'TIGHTENING', '1')),
    ).toMatch(/TIGHTENING must be a number in \(0, 1\)/);
    expect(await refusal(fcall('bk_reserve', 'chain-bad', 'standard', '100', '0.01', 'GROWTH', '2'))).toMatch(
      /GROWTH applies to a scalable filter/,
    );
    expect(await refusal(fcall('bk_reserve', 'chain-bad', 'scalable', String(2 ** 40), '1e-9'))).toMatch(
      /more than a Redis string/,
    );
    expect(await keysOf('chain-bad')).toEqual([]);
  });
});

describe('bk_reserve and bk_insert', () => {
  it('size as core does, and Node’s create opens what they made (and the reverse)', async () => {
    const next = (() => {
      let x = 12345;
      return () => {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        return x / 2 ** 31;
      };
    })();
    let differ = 0;
    const total = depth(200);
    for (let j = 0; j < total; j++) {
      const kind = (['standard', 'partitioned', 'counting'] as const)[j % 3]!;
      const capacity = 1 + Math.floor(next() ** 3 * 2_000_000);
      const fpr = Number((10 ** (-1 - next() * 6)).toPrecision(1 + (j % 4)));
      const name = `sizing-${j}`;
      await fcall('bk_reserve', name, kind, String(capacity), String(fpr));
      const layout = kind === 'partitioned' ? partitionedLayout : standardLayout;
      const shape = chooseShape(capacity, fpr, layout);
      const [bits, hashes] = (await client.hmget(`bloomkit:{${name}}:meta`, 'bits', 'hashes')).map(Number);
      if (bits !== shape.bits || hashes !== shape.hashes) differ++;
      // Same capacity and rate: the Node client opens it, whatever m the server picked.
      const node = await RedisBloomFilter.create(client, name, { kind, capacity, fpr });
      expect([node.bits, node.hashes]).toEqual([bits, hashes]);
      await node.drop();
    }
    // A boundary case may differ by one unit (log1p and expm1 within ulps): none in this sample.
    expect(differ).toBe(0);
  });

  it('opens a filter with the same parameters and refuses others, naming the difference', async () => {
    await RedisBloomFilter.create(client, 'reserve-same', {
      kind: 'partitioned',
      capacity: 1_000,
      fpr: 0.001,
    });
    expect(await fcall('bk_reserve', 'reserve-same', 'partitioned', '1000', '0.001')).toBe('OK');
    expect(await refusal(fcall('bk_reserve', 'reserve-same', 'partitioned', '1000', '0.01'))).toMatch(
      /bloomkit: bk_reserve: a filter named reserve-same exists with other parameters \(fpr 0\.001 vs 0\.01\)/,
    );
    expect(await refusal(fcall('bk_reserve', 'reserve-same', 'standard', '1000', '0.001'))).toMatch(
      /kind partitioned vs standard/,
    );
    expect(
      await refusal(fcall('bk_reserve', 'reserve-same', 'partitioned', '1000', '0.001', 'SEED', '9')),
    ).toMatch(/seed 0 vs 9/);
    await expect(
      RedisBloomFilter.create(client, 'reserve-same', { kind: 'partitioned', capacity: 1_000, fpr: 0.01 }),
    ).rejects.toThrow(/other parameters/);
  });

  it('bk_insert creates with RedisBloom’s defaults, opens, and honours NOCREATE', async () => {
    expect(await fcall('bk_insert', 'insert-a', 'ITEMS', 'x', 'y', 'x')).toEqual([1, 1, 0]);
    const node = await RedisBloomFilter.open(client, 'insert-a');
    expect([node.kind, node.capacity, node.fpr]).toEqual(['standard', 100, 0.01]);
    expect(await fcall('bk_insert', 'insert-a', 'CAPACITY', '100', 'ITEMS', 'z')).toEqual([1]);
    expect(await refusal(fcall('bk_insert', 'insert-a', 'CAPACITY', '500', 'ITEMS', 'z'))).toMatch(
      /capacity 100 vs 500/,
    );
    expect(await refusal(fcall('bk_insert', 'insert-none', 'NOCREATE', 'ITEMS', 'z'))).toMatch(
      /bloomkit: no filter insert-none/,
    );
    expect(await keysOf('insert-none')).toEqual([]);
    expect(
      await fcall(
        'bk_insert',
        'insert-b',
        'KIND',
        'counting',
        'CAPACITY',
        '50',
        'ERROR',
        '0.05',
        'ITEMS',
        'q',
      ),
    ).toEqual([1]);
    expect((await RedisBloomFilter.open(client, 'insert-b')).kind).toBe('counting');
  });

  it('bk_info gives RedisBloom’s fields, then bloomkit’s', async () => {
    await fcall('bk_reserve', 'info-a', 'counting', '1000', '0.01', 'COUNTERBITS', '8', 'SEED', '3');
    await fcall('bk_madd', 'info-a', 'a', 'b', 'c');
    const flat = (await fcall('bk_info', 'info-a')) as (string | number)[];
    const info = Object.fromEntries(flat.flatMap((v, j) => (j % 2 === 0 ? [[v, flat[j + 1]]] : [])));
    const node = await RedisBloomFilter.open(client, 'info-a');
    expect(info).toMatchObject({
      Capacity: 1000,
      Size: node.bits,
      'Number of filters': 1,
      'Number of items inserted': 3,
      Kind: 'counting',
      Bits: node.bits,
      Hashes: node.hashes,
      Seed: 3,
      'Error rate': '0.01',
      'Counter bits': 8,
    });
  });
});

describe('the same safety as the Node client', () => {
  it('after a drop or an expiry: "no filter NAME", and no key written', async () => {
    for (const how of ['drop', 'expire'] as const) {
      const name = `gone-${how}`;
      const filter = await RedisBloomFilter.create(client, name, {
        kind: 'standard',
        capacity: 100,
        fpr: 0.01,
      });
      await fcall('bk_add', name, 'before');
      if (how === 'drop') await filter.drop();
      else {
        // The storage string alone expires (the meta hash stays): the guard is what tells.
        await client.pexpire((await filter.info()).keys[0]!, 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const [verb, args] of [
        ['bk_add', ['k']],
        ['bk_madd', ['k', 'l']],
        ['bk_exists', ['k']],
        ['bk_mexists', ['k']],
        ['bk_card', []],
        ['bk_info', []],
      ] as const) {
        expect(await refusal(fcall(verb, name, ...args)), verb).toMatch(
          how === 'drop' ? `bloomkit: no filter ${name}` : /bloomkit: no filter/,
        );
      }
      const left = await keysOf(name);
      expect(left.filter((key) => key.includes(':data:'))).toEqual([]);
      await client.del(...left, 'x');
    }
  });

  it('a name dropped and reserved again gets new storage; an old Node handle writes nothing into it', async () => {
    await fcall('bk_reserve', 'again', 'standard', '100', '0.01');
    const old = await RedisBloomFilter.open(client, 'again');
    await old.drop();
    await fcall('bk_reserve', 'again', 'standard', '100', '0.01');
    await expect(old.add('stale')).rejects.toThrow(/no longer exists/);
    expect(await fcall('bk_exists', 'again', 'stale')).toBe(0);
  });

  it('concurrent test-and-adds from many connections accept every key exactly once', async () => {
    await fcall('bk_reserve', 'race', 'standard', '200000', '0.001');
    const clients = Array.from({ length: 6 }, () => client.duplicate());
    const keys = urlKeys(depth(12_000), 'race');
    const accepted = new Map<string, number>();
    await Promise.all(
      clients.map(async (c, w) => {
        // Each writer takes the keys in its own order, overlapping every other writer.
        const order = w % 2 === 0 ? keys : [...keys].reverse();
        for (let at = 0; at < order.length; at += 500) {
          const batch = order.slice(at, at + 500);
          const answers = (await c.call('FCALL', 'bk_madd', '1', 'race', ...batch)) as number[];
          batch.forEach((key, j) => {
            if (answers[j] === 1) accepted.set(key, (accepted.get(key) ?? 0) + 1);
          });
        }
      }),
    );
    for (const c of clients) c.disconnect();
    const twice = [...accepted.values()].filter((n) => n > 1).length;
    expect(twice).toBe(0);
    // A key absent from the map was a false positive of the keys before it: rare at 0.001.
    expect(accepted.size).toBeGreaterThan(keys.length * 0.99);
    expect(await fcall('bk_card', 'race')).toBe(accepted.size);
  });

  it('hostile arguments are error replies that name the argument, and leave nothing behind', async () => {
    const cases: [string, string[], RegExp][] = [
      ['bk_reserve', [], /give KIND CAPACITY FPR/],
      ['bk_reserve', ['standard', 'abc', '0.01'], /CAPACITY must be an integer/],
      ['bk_reserve', ['standard', '-5', '0.01'], /CAPACITY must be an integer/],
      ['bk_reserve', ['standard', '1e3', '0.01'], /CAPACITY must be an integer/],
      ['bk_reserve', ['standard', '99999999999999999999', '0.01'], /CAPACITY must be an integer/],
      ['bk_reserve', ['standard', '100', 'nan'], /FPR must be a number in \(0, 1\)/],
      ['bk_reserve', ['standard', '100', 'inf'], /FPR must be a number in \(0, 1\)/],
      ['bk_reserve', ['standard', '100', '0x0.1'], /FPR must be a number in \(0, 1\)/],
      ['bk_reserve', ['standard', '100', '0'], /FPR must be a number in \(0, 1\)/],
      ['bk_reserve', ['standard', '100', '1'], /FPR must be a number in \(0, 1\)/],
      [
        'bk_reserve',
        ['standard', '100', '0.01', 'SEED', '4294967296'],
        /SEED must be an integer in \[0, 4294967295\]/,
      ],
      ['bk_reserve', ['standard', '100', '0.01', 'SEED'], /bk_reserve: SEED needs a value/],
      [
        'bk_reserve',
        ['standard', '100', '0.01', 'COUNTERBITS', '4'],
        /COUNTERBITS applies to a counting filter/,
      ],
      ['bk_reserve', ['counting', '100', '0.01', 'COUNTERBITS', '16'], /COUNTERBITS must be/],
      ['bk_reserve', ['counting', '100', '0.01', 'EXCEPTIONS'], /EXCEPTIONS live beside bits/],
      ['bk_reserve', ['blocked', '100', '0.01'], /kind blocked is created by @bloomkit\/redis/],
      ['bk_reserve', ['bogus', '100', '0.01'], /KIND must be one of standard, partitioned, counting/],
      ['bk_reserve', ['standard', '100', '0.01', 'GROWTH', '2'], /GROWTH applies to a scalable filter/],
      ['bk_reserve', ['standard', '9007199254740991', '1e-300'], /needs more than a Redis string/],
      ['bk_add', [], /give one ITEM/],
      ['bk_add', ['a', 'b'], /give one ITEM/],
      ['bk_madd', [], /give at least one ITEM/],
      ['bk_insert', ['CAPACITY'], /'CAPACITY' needs a value/],
      ['bk_insert', ['CAPACITY', '10'], /give ITEMS and at least one ITEM/],
      ['bk_insert', ['NOCREATE', 'CAPACITY', '10', 'ITEMS', 'x'], /NOCREATE opens a filter/],
      ['bk_insert', ['WHAT', 'ITEMS', 'x'], /unknown option 'WHAT'/],
    ];
    for (const [verb, args, message] of cases) {
      const reply = await refusal(fcall(verb, 'hostile', ...args));
      expect(reply, `${verb} ${args.join(' ')}`).toMatch(/^ERR bloomkit: /);
      expect(reply, `${verb} ${args.join(' ')}`).toMatch(message);
    }
    expect(await refusal(fcall('bk_add', 'bad{name}', 'x'))).toMatch(/without '\{' or '\}'/);
    expect(await refusal(client.call('FCALL', 'bk_add', '0', 'x'))).toMatch(/key argument/);
    expect(await keysOf('hostile')).toEqual([]);
    expect(await client.ping()).toBe('PONG');
  });

  it('a crafted meta is an error reply naming the field: never a hang, a huge loop or a silent no-op', async () => {
    const crafted: [string, string, RegExp][] = [
      ['format', 'bloomkit/2', /is not a bloomkit filter/],
      ['kind', 'mystery', /meta field kind/],
      ['kind', 'scalable', /meta field growth/],
      ['kind', 'window', /is a window filter without its shape/],
      ['hashes', '0', /meta field hashes .* must be an integer in \[1, 64\]/],
      ['hashes', '100000000', /meta field hashes/],
      ['hashes', '7.5', /meta field hashes/],
      ['bits', '0', /meta field bits/],
      ['bits', String(2 ** 40), /meta field bits/],
      ['bits', '-1', /meta field bits/],
      ['bits', '1e9', /meta field bits/],
      ['seed', '4294967296', /meta field seed/],
      ['seed', '', /meta field seed/],
      ['generation', '0', /meta field generation/],
      ['counterBits', '4', /meta field counterBits/],
      ['capacity', 'lots', /meta field capacity/],
      ['fpr', '2', /meta field fpr/],
      ['fpr', 'nan', /meta field fpr/],
      ['shards', '7', /meta field shards/],
      ['exceptions', '2', /meta field exceptions/],
      ['duration', '1000', /meta field duration/],
      ['state', 'creating', /is still being created/],
    ];
    const filter = await RedisBloomFilter.create(client, 'crafted', {
      kind: 'partitioned',
      capacity: 100,
      fpr: 0.01,
    });
    const meta = 'bloomkit:{crafted}:meta';
    const data = (await filter.info()).keys[0]!;
    const bytes = await client.getBuffer(data);
    for (const [field, value, message] of crafted) {
      const original = await client.hget(meta, field);
      await client.hset(meta, field, value);
      for (const verb of ['bk_add', 'bk_exists'] as const) {
        const started = Date.now();
        expect(await refusal(fcall(verb, 'crafted', 'k')), `${field}=${value}`).toMatch(message);
        expect(Date.now() - started).toBeLessThan(5_000);
      }
      if (original === null) await client.hdel(meta, field);
      else await client.hset(meta, field, original);
    }
    // `count` is read by the verbs that use it, before anything is written.
    await client.hset(meta, 'count', '-3');
    for (const verb of ['bk_add', 'bk_card', 'bk_info'] as const) {
      expect(await refusal(fcall(verb, 'crafted', ...(verb === 'bk_add' ? ['k'] : []))), verb).toMatch(
        /meta field count .* must be an integer/,
      );
    }
    await client.hset(meta, 'count', '0');
    // A partitioned filter whose m is not a multiple of k.
    await client.hset(meta, 'bits', '1001');
    expect(await refusal(fcall('bk_add', 'crafted', 'k'))).toMatch(/meta field bits .* a multiple of/);
    expect(await client.getBuffer(data)).toEqual(bytes);
    const start = Date.now();
    expect(await client.ping()).toBe('PONG');
    expect(Date.now() - start).toBeLessThan(1_000);
  });

  it('random metas and arguments: error replies or answers, and the server still answers PING', async () => {
    const FIELDS = [
      'format',
      'kind',
      'seed',
      'bits',
      'hashes',
      'counterBits',
      'capacity',
      'fpr',
      'generation',
      'growth',
      'tightening',
      'shapes',
      'filters',
      'count:0',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer().map(String),
      fc.double().map(String),
      fc.constantFrom('', '0', '-0', '1e308', '4294967296', '18446744073709551616', 'NaN', 'Infinity'),
    );
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 3 }),
        fc.constantFrom(
          'bk_add',
          'bk_madd',
          'bk_exists',
          'bk_mexists',
          'bk_card',
          'bk_info',
          'bk_mdel',
          'bk_except',
          'bk_madd_at',
        ),
        fc.array(fc.oneof(fc.string({ maxLength: 10 }), value), { maxLength: 4 }),
        fc.constantFrom('counting', 'scalable'),
        async (fields, verb, args, kind) => {
          const name = `fuzz-${serial++}`;
          await RedisBloomFilter.create(client, name, { kind, capacity: 50, fpr: 0.1 });
          if (Object.keys(fields).length > 0) await client.hset(`bloomkit:{${name}}:meta`, fields);
          const started = Date.now();
          await fcall(verb, name, ...args).catch((error: Error) => {
            expect(error.message).toMatch(/^ERR bloomkit: /);
          });
          expect(Date.now() - started).toBeLessThan(2_000);
          const keys = await keysOf(name);
          // The meta hash and its one storage string; a chain whose crafted count:0 says its newest is full grows
          // once (the next newest is empty, far below its capacity for four items). Beside them, the ledger of the
          // calls applied once (lua/ledger.lua), which create writes.
          const storage = keys.filter((key) => !key.endsWith('}:calls'));
          expect(storage.length).toBeLessThanOrEqual(kind === 'scalable' ? 3 : 2);
          await client.del(...keys, 'x');
        },
      ),
      { numRuns: depth(200) },
    );
    expect(await client.ping()).toBe('PONG');
  });
});

describe('a blocked filter: one shard per call, by the shard rule', () => {
  /** The shard that holds `key`'s block (the README's rule; here from the library's positions). */
  const shardOf = (positions: KeyPositions, shardBlocks: number, key: Key) =>
    Math.floor(positions.of(key)[0]! / (shardBlocks * 512));

  it('adds and asks through its shards, and Node agrees key for key', async () => {
    const options: RedisFilterOptions = { kind: 'blocked', capacity: 20_000, fpr: 0.01, seed: 4, shards: 9 };
    const node = await RedisBloomFilter.create(client, 'blocked-a', options);
    const info = (await fcall('bk_info', 'blocked-a')) as (string | number)[];
    const field = (name: string) => info[info.indexOf(name) + 1] as number;
    expect([field('Bits'), field('Hashes'), field('Seed'), field('Shards')]).toEqual([
      node.bits,
      node.hashes,
      4,
      node.params.shards,
    ]);
    const positions = new KeyPositions(blockedLayout, node.bits, node.hashes, 4);
    const keys = [...urlKeys(3_000, 'blocked'), ...binaryKeys(300, 9), 'ключ'];
    const local = createFilter('blocked', { capacity: 20_000, fpr: 0.01, seed: 4 });
    const byShard = new Map<number, Key[]>();
    for (const key of keys) {
      const shard = shardOf(positions, field('Shard blocks'), key);
      byShard.set(shard, [...(byShard.get(shard) ?? []), key]);
    }
    let added = 0;
    for (const [shard, list] of byShard) {
      const answers = (await fcall(
        'bk_shard_madd',
        `blocked-a/${shard}`,
        field('Generation'),
        ...list,
      )) as number[];
      expect(answers).toEqual(list.map((key) => (local.add(key) ? 1 : 0)));
      added += answers.reduce((a, b) => a + b, 0);
      expect(await fcall('bk_shard_mexists', `blocked-a/${shard}`, field('Generation'), ...list)).toEqual(
        list.map(() => 1),
      );
    }
    expect(await fcall('bk_shard_count', 'blocked-a', field('Generation'), added)).toBe(added);
    expect(await node.export()).toEqual(local.serialize());
    expect(await fcall('bk_card', 'blocked-a')).toBe(local.count);
    // The verbs of one-slot filters name what to do instead.
    expect(await refusal(fcall('bk_add', 'blocked-a', 'x'))).toMatch(
      new RegExp(
        `blocked-a is a blocked filter, spread over ${node.params.shards} shards in other slots: send each item to its shard with bk_shard_madd`,
      ),
    );
    // An item sent to a shard that does not hold it: refused, and nothing written.
    const [first, others] = [[...byShard.keys()][0]!, [...byShard.keys()][1]!];
    const before = await node.export();
    expect(
      await refusal(
        fcall(
          'bk_shard_madd',
          `blocked-a/${first}`,
          field('Generation'),
          'fresh-1',
          byShard.get(others)![0]!,
        ),
      ),
    ).toMatch(/belongs to shard \d+ of blocked-a, not \d+: route each item by the shard rule/);
    expect(await node.export()).toEqual(before);
    // A stale generation, a shard that does not exist, a key argument that is not NAME/i.
    expect(await refusal(fcall('bk_shard_madd', `blocked-a/${first}`, '12345', 'x'))).toMatch(
      /no filter blocked-a of generation 12345 with a shard/,
    );
    expect(await refusal(fcall('bk_shard_mexists', 'blocked-a/99', field('Generation'), 'x'))).toMatch(
      /with a shard 99/,
    );
    expect(await refusal(fcall('bk_shard_madd', 'blocked-a', field('Generation'), 'x'))).toMatch(
      /must be NAME\/SHARD/,
    );
    expect(await refusal(fcall('bk_shard_count', 'blocked-a', '12345', '1'))).toMatch(
      /no filter blocked-a of generation/,
    );
    await node.drop();
    expect(await refusal(fcall('bk_shard_madd', `blocked-a/${first}`, field('Generation'), 'x'))).toMatch(
      /no filter/,
    );
    expect(await client.keys('bloomkit:{blocked-a*')).toEqual([]);
  });

  it('a shard whose shape bytes were tampered with is an error reply, never a write', async () => {
    const node = await RedisBloomFilter.create(client, 'blocked-b', {
      kind: 'blocked',
      bits: 512 * 40,
      hashes: 6,
      shards: 4,
    });
    const generation = (await client.hget('bloomkit:{blocked-b}:meta', 'generation'))!;
    const shard = `bloomkit:{blocked-b/0}:shard:${Number(generation).toString(16).padStart(8, '0')}`;
    const length = await client.strlen(shard);
    const pristine = await client.getBuffer(shard);
    for (const [at, value, what] of [
      [4, 0x41, /marker or version/],
      [12, 0, /hashes/],
      [12, 65, /hashes/],
      [13, 2, /exceptions/],
      [16, 0xff, /bits/],
      [27, 0, /blocks per shard/],
      [31, 1, /shard index/],
    ] as const) {
      const tampered = Buffer.from(pristine!);
      tampered[length - 28 + at - 4] = value;
      await client.set(shard, tampered);
      expect(await refusal(fcall('bk_shard_madd', 'blocked-b/0', generation, 'k')), `byte ${at}`).toMatch(
        what,
      );
      expect(await client.getBuffer(shard)).toEqual(tampered);
    }
    await client.set(shard, pristine!);
    await node.drop();
  });
});

describe('windows through the functions', () => {
  it('a count window: answers, count and bytes equal the local filter’s across many shifts, both doors mixed', async () => {
    const node = await RedisBloomFilter.create(client, 'win-count', {
      kind: 'window',
      capacity: 1_500,
      fpr: 0.01,
      seed: 5,
    });
    const local = WindowBloomFilter.create(1_500, 0.01, { seed: 5 });
    const keys = [...urlKeys(9_000, 'win-stream', 2), ...binaryKeys(300, 7)];
    // Batches of uneven sizes, every other one through Node, so shifts fall inside batches and between doors.
    let turn = 0;
    for (let from = 0, size = 1; from < keys.length; from += size, size = (size * 7) % 997) {
      const batch = keys.slice(from, from + size);
      const expected = batch.map((key) => local.add(key));
      if (turn++ % 2 === 0) {
        expect(((await fcall('bk_madd', 'win-count', ...batch)) as number[]).map(Boolean)).toEqual(expected);
      } else {
        expect(await node.addMany(batch)).toEqual(expected);
      }
    }
    const probe = [...keys.slice(-2_000), ...urlKeys(2_000, 'win-absent', 3)];
    expect(((await fcall('bk_mexists', 'win-count', ...probe)) as number[]).map(Boolean)).toEqual(
      local.hasMany(probe),
    );
    expect(await fcall('bk_exists', 'win-count', keys.at(-1)!)).toBe(1);
    expect(await fcall('bk_card', 'win-count')).toBe(local.count);
    expect(await node.export()).toEqual(local.serialize());
    await node.drop();
    expect(await refusal(fcall('bk_add', 'win-count', 'x'))).toMatch(/no filter win-count/);
  });

  it(
    'a time window follows the server’s clock: keys leave after their duration, through both doors',
    // Its 10 s wait is what it tests; the limit is for a hang (beside CPU-bound work the test took 10.1 s).
    { timeout: 60_000 },
    async () => {
      const node = await RedisBloomFilter.create(client, 'win-time', {
        kind: 'window',
        capacity: 1_000,
        fpr: 0.01,
        duration: 4_000, // long beside a call, even on a busy machine: the later keys are asked at once
      });
      const first = urlKeys(300, 'early');
      expect(await fcall('bk_madd', 'win-time', ...first)).toEqual(first.map(() => 1));
      expect(await node.hasMany(first)).toEqual(first.map(() => true));
      // A key stays at least the duration and leaves within the duration and a generation's period after it.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const later = urlKeys(300, 'later');
      expect(await node.addMany(later)).toEqual(later.map(() => true));
      expect(await fcall('bk_mexists', 'win-time', ...later)).toEqual(later.map(() => 1));
      // Past the duration the early keys are gone for both (up to the rate's false positives).
      const early = (await fcall('bk_mexists', 'win-time', ...first)) as number[];
      expect(early.filter((a) => a === 1).length).toBeLessThan(15);
      expect((await node.hasMany(first)).map(Number)).toEqual(early);
      await node.drop();
    },
  );

  it('bk_madd_at and bk_mexists_at run a time window on the caller’s clock, as a Node handle with its own clock does', async () => {
    let now = 1_700_000_000_000; // far from the server's clock: trusted with TOLERANCE inf
    const clock = () => now;
    const duration = 60_000;
    const node = await RedisBloomFilter.create(client, 'win-at', {
      kind: 'window',
      capacity: 2_000,
      fpr: 0.01,
      duration,
      clock,
      clockTolerance: Number.POSITIVE_INFINITY,
    });
    const local = WindowBloomFilter.create(2_000, 0.01, { duration, clock });
    const keys = urlKeys(6_000, 'at');
    for (let at = 0, b = 0; at < keys.length; at += 500, b++) {
      // Generations end by time and by keys, some batches skip several; readings with a fraction of a ms, as a
      // client's clock (performance.timeOrigin + performance.now()) gives them, pass through MS exactly.
      now += 1_500 + ((b * 7_919) % 9_000) + (b % 3) / 7;
      const batch = keys.slice(at, at + 500);
      const expected = batch.map((key) => local.add(key));
      if (b % 2 === 0) {
        const answers = (await fcall('bk_madd_at', 'win-at', String(now), 'inf', ...batch)) as number[];
        expect(answers.map((a) => a === 1)).toEqual(expected);
      } else {
        expect(await node.addMany(batch)).toEqual(expected);
      }
      const probes = keys.slice(Math.max(0, at - 3_000), at + 500);
      const present = (await fcall('bk_mexists_at', 'win-at', String(now), 'inf', ...probes)) as number[];
      expect(present.map((a) => a === 1)).toEqual(probes.map((key) => local.has(key)));
    }
    expect(await node.export()).toEqual(local.serialize());
    // A caller's time further from the server's than TOLERANCE: an error reply, and nothing changes.
    const meta = 'bloomkit:{win-at}:meta';
    const before = [await client.hgetall(meta), await node.export()];
    const far = String(Date.now() + 600_000);
    expect(await refusal(fcall('bk_madd_at', 'win-at', far, '1000', 'new-key'))).toMatch(
      /bk_madd_at: MS is \d+ ms off the server's clock, more than TOLERANCE 1000; nothing was written/,
    );
    expect(await refusal(fcall('bk_mexists_at', 'win-at', far, '1000', 'x'))).toMatch(
      /off the server's clock/,
    );
    expect(await refusal(fcall('bk_madd_at', 'win-at', '-5', 'inf', 'x'))).toMatch(
      /MS must be a time in ms since the epoch, digits with an optional fraction, in \[0, 140737488355328\], got '-5'/,
    );
    expect(await refusal(fcall('bk_madd_at', 'win-at', '5', '1e3', 'x'))).toMatch(
      /TOLERANCE must be an integer/,
    );
    expect(await refusal(fcall('bk_madd_at', 'win-at', far))).toMatch(/give MS TOLERANCE ITEM/);
    expect([await client.hgetall(meta), await node.export()]).toEqual(before);
    // Within the tolerance: the server's time less a second, added.
    const near = String(Date.now() - 1_000);
    expect(await fcall('bk_madd_at', 'win-at', near, '60000', 'near-key')).toEqual([1]);
    await node.drop();
    // Not a time window: refused, naming the verb to use.
    await RedisBloomFilter.create(client, 'win-at-count', { kind: 'window', capacity: 100, fpr: 0.01 });
    expect(await refusal(fcall('bk_madd_at', 'win-at-count', near, 'inf', 'x'))).toMatch(
      /is a count window filter; a caller's time applies to a time window \(use bk_madd\)/,
    );
    await (await RedisBloomFilter.open(client, 'win-at-count')).drop();
  });

  it('a time window of a 2 ms duration read at jumps up to 2^40 ms: both doors keep the local bytes, a second reading ends nothing', async () => {
    // FORMAT §3.6's cap of an idle gap: the newest generation begins at the reading, and an empty generation that
    // began at a reading does not end at it. Periods of a few hundredths of a ms near t = 10^13..10^14, where the
    // old cap (whole periods from the last end) could leave start + P ≤ t.
    let now = 1_000_000_000_000;
    const clock = () => now;
    const options = { duration: 2, clock } as const;
    const node = await RedisBloomFilter.create(client, 'win-tiny', {
      kind: 'window',
      capacity: 10,
      fpr: 0.01,
      ...options,
      clockTolerance: Number.POSITIVE_INFINITY,
    });
    const local = WindowBloomFilter.create(10, 0.01, options);
    let state = 7;
    for (let b = 0; b < 60; b++) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      now += (state / 2 ** 32) ** 2 * 2 ** 40;
      if (now > 2 ** 47) now = 1_000_000_000_000 + b;
      const batch = [`tiny ${b}`, `tiny ${b} again`];
      const expected = batch.map((key) => local.add(key));
      if (b % 2 === 0) {
        const answers = (await fcall('bk_madd_at', 'win-tiny', String(now), 'inf', ...batch)) as number[];
        expect(answers.map((a) => a === 1)).toEqual(expected);
      } else {
        expect(await node.addMany(batch)).toEqual(expected);
      }
      local.has('a reading');
      expect(await node.export()).toEqual(local.serialize());
      now += 0.01;
      local.has('a reading');
      const once = local.serialize();
      local.has('the same reading again');
      expect(local.serialize()).toEqual(once);
      const probes = [...batch, 'never added'];
      const present = (await fcall('bk_mexists_at', 'win-tiny', String(now), 'inf', ...probes)) as number[];
      expect(present.map((a) => a === 1)).toEqual(probes.map((key) => local.has(key)));
      expect(await node.hasMany(probes)).toEqual(probes.map((key) => local.has(key)));
    }
    await node.drop();
  });

  it('a window without its shape in the meta, or with a crafted state, is an error reply naming the field', async () => {
    const node = await RedisBloomFilter.create(client, 'win-crafted', {
      kind: 'window',
      capacity: 100,
      fpr: 0.01,
    });
    const meta = 'bloomkit:{win-crafted}:meta';
    const bytes = await node.export();
    for (const [field, value, message] of [
      ['ageSlices', null, /without its shape in .*made by an older @bloomkit\/redis/],
      ['ageSlices', '999', /meta field ageSlices/],
      ['sliceBits', '12', /meta field sliceBits/],
      ['generationKeys', '0', /meta field generationKeys/],
      ['period', '5', /meta field period/],
      ['bits', '7', /meta field bits/],
      ['newest', '99', /meta field newest/],
      ['keys:0', '-1', /meta field keys:0/],
      ['start:0', '1', /meta field start:0/],
    ] as const) {
      const original = await client.hget(meta, field);
      if (value === null) await client.hdel(meta, field);
      else await client.hset(meta, field, value);
      for (const verb of ['bk_add', 'bk_exists'] as const) {
        expect(await refusal(fcall(verb, 'win-crafted', 'k')), `${field}=${value}`).toMatch(message);
      }
      await client.hset(meta, field, original!);
    }
    expect(await node.export()).toEqual(bytes);
    expect(await refusal(fcall('bk_reserve', 'win-new', 'window', '100', '0.01'))).toMatch(
      /kind window is created by @bloomkit\/redis or bloomkit push/,
    );
    expect(
      await refusal(fcall('bk_reserve', 'win-new', 'standard', '100', '0.01', 'DURATION', '60000')),
    ).toMatch(/DURATION applies to a window filter, which the functions do not size/);
    await node.drop();
  });
});

describe('users and ACLs', () => {
  /** The ACL the README gives a fleet's user: the names its filters have, and the commands the verbs run inside. */
  const FLEET_ACL = [
    '~bloomkit:*',
    '~crawler:*',
    '+fcall',
    '+fcall_ro',
    ...'hmget hget exists time bitfield bitfield_ro getbit hincrby hset setrange del srem sismember sadd scard pttl pexpire'
      .split(' ')
      .map((command) => `+${command}`),
  ];

  it('a user with the documented ACL uses every verb; one without a command or the name gets an error reply', async () => {
    await client.call('ACL', 'SETUSER', 'fleet', 'on', '>fleet-pw', ...FLEET_ACL);
    const fleet = client.duplicate({ username: 'fleet', password: 'fleet-pw' });
    const call = (...args: string[]) => fleet.call('FCALL', ...args);
    expect(await call('bk_reserve', '1', 'crawler:acl', 'counting', '1000', '0.01')).toBe('OK');
    expect(await call('bk_madd', '1', 'crawler:acl', 'a', 'b')).toEqual([1, 1]);
    expect(await fleet.call('FCALL_RO', 'bk_mexists', '1', 'crawler:acl', 'a', 'c')).toEqual([1, 0]);
    expect(await call('bk_mdel', '1', 'crawler:acl', 'a')).toEqual([1]);
    expect(await fleet.call('FCALL_RO', 'bk_card', '1', 'crawler:acl')).toBe(1);
    expect(await call('bk_reserve', '1', 'crawler:acl-exc', 'standard', '100', '0.01', 'EXCEPTIONS')).toBe(
      'OK',
    );
    expect(await call('bk_add', '1', 'crawler:acl-exc', 'x')).toBe(1);
    expect(await call('bk_except', '1', 'crawler:acl-exc', 'x')).toEqual([1]);
    expect(await call('bk_unexcept', '1', 'crawler:acl-exc', 'x')).toEqual([1]);
    expect((await fleet.call('FCALL_RO', 'bk_info', '1', 'crawler:acl-exc')) as unknown[]).toContain('Kind');
    expect(await call('bk_insert', '1', 'crawler:acl-ins', 'ITEMS', 'q')).toEqual([1]);
    // A name outside the user's key patterns, and a user without a command the verbs run inside.
    expect(await refusal(call('bk_add', '1', 'other:seen', 'x'))).toMatch(/^NOPERM/);
    await client.call(
      'ACL',
      'SETUSER',
      'narrow',
      'on',
      '>narrow-pw',
      '~bloomkit:*',
      '~crawler:*',
      '+fcall',
      '+fcall_ro',
    );
    const narrow = client.duplicate({ username: 'narrow', password: 'narrow-pw' });
    expect(await refusal(narrow.call('FCALL', 'bk_add', '1', 'crawler:acl', 'x'))).toMatch(
      /^ERR The user executing the script can't run this command/,
    );
    fleet.disconnect();
    narrow.disconnect();
  });
});

describe('installing the library', () => {
  it('status says the version; a newer one on the server is never replaced; remove deletes it', async () => {
    const [status] = await RedisBloomFilter.functionsStatus(client);
    expect(status!.version).toBe(functionsVersion());
    expect(await RedisBloomFilter.installFunctions(client)).toEqual([status]);
    const newer = functionsSource().replace(/^local VERSION = \d+$/m, 'local VERSION = 999');
    await client.call('FUNCTION', 'LOAD', 'REPLACE', newer);
    await expect(RedisBloomFilter.installFunctions(client)).rejects.toThrow(
      `holds bloomkit functions version 999, newer than this package's ${functionsVersion()}; not replaced`,
    );
    expect((await RedisBloomFilter.functionsStatus(client))[0]!.version).toBe(999);
    expect((await RedisBloomFilter.removeFunctions(client))[0]!.version).toBeNull();
    expect(await refusal(client.call('FCALL', 'bk_add', '1', 'x', 'y'))).toMatch(/Function not found/);
    expect((await RedisBloomFilter.installFunctions(client))[0]!.version).toBe(functionsVersion());
  });
});
