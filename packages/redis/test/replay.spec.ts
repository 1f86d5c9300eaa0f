import type { Key } from '@bloomkit/core';
import { urlKeys } from '@bloomkit/testkit';
import { type RedisProcess, ReplayProxy, startRedis } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter } from '../src/index.js';
import { runJsonClient } from './clients/support.js';

// Every write applied once under replay (lua/ledger.lua): a connection dropped right after Redis applied a call,
// the client (ioredis, default options) resending what it had in flight. Each filter here gets the same calls as a
// twin that a direct connection sends once; the answers, counts and exported bytes must be the twin's.

let server: RedisProcess;
let direct: Redis;
let proxied: Redis;
let proxy: ReplayProxy;

beforeAll(async () => {
  server = await startRedis();
  proxy = await ReplayProxy.start(server.port);
  direct = new Redis({ port: server.port, host: '127.0.0.1' });
  proxied = new Redis({ port: proxy.port, host: '127.0.0.1' });
  await RedisBloomFilter.installFunctions(direct);
}, 60_000);

afterAll(async () => {
  direct?.disconnect();
  proxied?.disconnect();
  await proxy?.close();
  server?.kill();
});

type Handle = Awaited<ReturnType<typeof RedisBloomFilter.create>>;
type Step = (filter: Handle) => Promise<unknown>;

/**
 * Runs each step on the twin (direct, once) and on the filter through the proxy, once for each of its skips, the
 * connection dropped after the `skip + 1`-th EVALSHA of the step was applied; answers must agree each time, and at
 * the end the count and the exported file.
 */
async function replayed(
  name: string,
  options: Parameters<typeof RedisBloomFilter.create>[2],
  steps: (Step | [Step, ...number[]])[],
): Promise<void> {
  const twin = await RedisBloomFilter.create(direct, `${name}:twin`, options);
  const filter = await RedisBloomFilter.create(proxied, name, options);
  for (const [at, entry] of steps.entries()) {
    const [step, ...skips] = typeof entry === 'function' ? [entry, 0] : entry;
    for (const skip of skips) {
      const expected = await step(twin);
      const drops = proxy.drops;
      proxy.trap('evalsha', skip);
      const answered = await step(filter);
      proxy.disarm();
      expect(
        proxy.drops,
        `${name}, step ${at}: dropped after the call's EVALSHA ${skip + 1} was applied`,
      ).toBe(drops + 1);
      expect(answered).toEqual(expected);
    }
  }
  expect(await filter.count()).toBe(await twin.count());
  expect(Buffer.compare(await filter.export(), await twin.export())).toBe(0);
  await twin.drop();
  await filter.drop();
}

const keys = (count: number, tag: string) => urlKeys(count, `replay-${tag}`);
const addMany =
  (list: Key[]): Step =>
  (filter) =>
    filter.addMany(list);
const deleteMany =
  (list: Key[]): Step =>
  (filter) =>
    filter.deleteMany(list);

describe('a resent call is applied once (Node, a connection dropped after Redis applied the call)', () => {
  it('standard and partitioned: small adds (one counted script) and large ones (bits, then the count)', async () => {
    for (const kind of ['standard', 'partitioned'] as const) {
      const big = keys(3_000, kind);
      await replayed(`replay:${kind}`, { kind, capacity: 10_000, fpr: 0.01, seed: 3 }, [
        addMany(big.slice(0, 5)),
        // Bits in several commands, then the count: dropped after the first, the second, the count.
        [addMany(big), 0, 1, 2],
        (filter) => filter.add(big[7]!),
        // New keys: one bits command, then the count, dropped after the count.
        [addMany(keys(40, `${kind}-b`)), 1],
        [addMany(keys(40, `${kind}-c`)), 0],
      ]);
    }
  });

  it('blocked: a batch over several shards', async () => {
    await replayed('replay:blocked', { kind: 'blocked', capacity: 20_000, fpr: 0.01, seed: 5, shards: 4 }, [
      [addMany(keys(4_000, 'blocked')), 0, 2, 4],
      addMany(keys(10, 'blocked-small')),
    ]);
  });

  it('counting: adds raise each counter once and deletes lower it once', async () => {
    const list = keys(2_500, 'counting');
    await replayed(
      'replay:counting',
      { kind: 'counting', capacity: 10_000, fpr: 0.01, seed: 7, counterBits: 4 },
      [
        addMany(list.slice(0, 8)),
        // Calls of 1,000 keys each: dropped after the first, the second.
        [addMany(list), 0, 1],
        addMany(list.slice(0, 1_200)),
        deleteMany(list.slice(0, 600)),
        (filter) => filter.delete(list[0]!),
      ],
    );
  });

  it('cuckoo: a resent add stores one copy, a resent delete removes one (the other worker keeps its key)', async () => {
    const twin = await RedisBloomFilter.create(direct, 'replay:job-twin', {
      kind: 'cuckoo',
      capacity: 1_000,
      fpr: 0.01,
      seed: 2,
    });
    await twin.add('job-42');
    const worker = await RedisBloomFilter.open(proxied, 'replay:job-twin');
    proxy.trap('evalsha');
    expect(await worker.add('job-42')).toBe(false);
    expect(await twin.countOf('job-42')).toBe(2);
    proxy.trap('evalsha');
    expect(await worker.delete('job-42')).toBe(true);
    expect(await twin.countOf('job-42')).toBe(1);
    expect(await twin.has('job-42')).toBe(true);
    await twin.drop();

    const list = keys(700, 'cuckoo');
    await replayed('replay:cuckoo', { kind: 'cuckoo', capacity: 2_000, fpr: 0.01, seed: 4 }, [
      addMany(list),
      addMany(list.slice(0, 300)),
      deleteMany(list.slice(0, 400)),
      (f) => f.add(list[1]!),
    ]);
  });

  it('scalable (the chain grows during the batch) and a count window', async () => {
    await replayed('replay:scalable', { kind: 'scalable', capacity: 300, fpr: 0.01, seed: 6 }, [
      addMany(keys(2_000, 'scalable')),
    ]);
    await replayed('replay:window', { kind: 'window', capacity: 500, fpr: 0.01, seed: 8 }, [
      addMany(keys(1_200, 'window')),
      addMany(keys(300, 'window')),
    ]);
  });

  it('exceptions: adds, listing and unlisting known false positives', async () => {
    const list = keys(1_000, 'exceptions');
    await replayed(
      'replay:exceptions',
      { kind: 'standard', capacity: 5_000, fpr: 0.01, seed: 9, exceptions: true },
      [
        addMany(list),
        (filter) => filter.addExceptions(list.slice(0, 50)),
        (filter) => filter.removeExceptions(list.slice(0, 20)),
        addMany(list.slice(0, 30)),
      ],
    );
  });
});

describe('a resent FCALL with ID token is applied once (the functions, any language)', () => {
  /** FCALL verb 1 name ...args. */
  const fcall = (client: Redis, verb: string, name: string, ...args: string[]) =>
    client.call('FCALL', verb, '1', name, ...args);

  it('bk_madd, bk_mdel and bk_add of a cuckoo and a counting filter, bk_madd of a bloom filter', async () => {
    for (const kind of ['cuckoo', 'counting', 'standard']) {
      const name = `replay:fn-${kind}`;
      const twin = `${name}-twin`;
      for (const one of [name, twin]) {
        await fcall(direct, 'bk_reserve', one, kind, '1000', '0.01');
        await fcall(direct, 'bk_madd', one, 'job-42');
      }
      const calls: [string, string[]][] = [
        ['bk_madd', ['job-42', 'job-43', 'job-43']],
        ['bk_add', ['job-44']],
        ['bk_madd', ['job-45', 'job-42']],
      ];
      if (kind !== 'standard') calls.push(['bk_mdel', ['job-42', 'job-43']], ['bk_del', ['job-44']]);
      for (const [at, [verb, items]] of calls.entries()) {
        const expected = await fcall(direct, verb, twin, ...items);
        const drops = proxy.drops;
        proxy.trap('fcall');
        const id = ['ID', `${name}-${at}`];
        expect(await fcall(proxied, verb, name, ...id, ...items)).toEqual(expected);
        expect(proxy.drops).toBe(drops + 1);
        // Sent again by hand, as a client told to retry would: the same reply, nothing changed.
        expect(await fcall(direct, verb, name, ...id, ...items)).toEqual(expected);
      }
      expect(await direct.call('FCALL_RO', 'bk_card', '1', name)).toBe(
        await direct.call('FCALL_RO', 'bk_card', '1', twin),
      );
      const probe = ['job-42', 'job-43', 'job-44', 'job-45', 'job-46'];
      expect(await direct.call('FCALL_RO', 'bk_mexists', '1', name, ...probe)).toEqual(
        await direct.call('FCALL_RO', 'bk_mexists', '1', twin, ...probe),
      );
      if (kind === 'cuckoo') {
        for (const item of probe) {
          expect(await direct.call('FCALL_RO', 'bk_count', '1', name, item)).toBe(
            await direct.call('FCALL_RO', 'bk_count', '1', twin, item),
          );
        }
      }
      const local = (one: string) => RedisBloomFilter.open(direct, one).then((filter) => filter.export());
      expect(Buffer.compare(await local(name), await local(twin))).toBe(0);
    }
  });

  const CLIENTS = new URL('./clients/', import.meta.url).pathname;
  it.each([
    ['Python (redis-py, retry on a dropped connection)', '/usr/bin/python3', 'replay.py'],
    ['PHP (php-redis, the call sent again on an exception)', 'php', 'replay.php'],
  ])(
    '%s: bk_madd and bk_mdel of cuckoo and counting filters, bk_madd of a bloom filter',
    async (_who, command, file) => {
      for (const kind of ['cuckoo', 'counting', 'standard']) {
        const name = `replay:${file}-${kind}`;
        const twin = `${name}-twin`;
        for (const one of [name, twin]) {
          await fcall(direct, 'bk_reserve', one, kind, '1000', '0.01');
          await fcall(direct, 'bk_madd', one, 'job-42');
        }
        const calls: [string, string[]][] = [['bk_madd', ['job-42', 'job-43', 'job-43', 'job-44']]];
        if (kind !== 'standard') calls.push(['bk_mdel', ['job-42', 'job-44', 'job-45']]);
        for (const [at, [verb, items]] of calls.entries()) {
          const expected = await fcall(direct, verb, twin, ...items);
          const drops = proxy.drops;
          proxy.trap('fcall');
          const address = `127.0.0.1:${proxy.port}`;
          expect(
            await runJsonClient(command, [CLIENTS + file, address, verb, name, `${name}-${at}`], items),
          ).toEqual(expected);
          proxy.disarm();
          expect(proxy.drops).toBe(drops + 1);
        }
        expect(await direct.call('FCALL_RO', 'bk_card', '1', name)).toBe(
          await direct.call('FCALL_RO', 'bk_card', '1', twin),
        );
        const exported = (one: string) =>
          RedisBloomFilter.open(direct, one).then((filter) => filter.export());
        expect(Buffer.compare(await exported(name), await exported(twin))).toBe(0);
      }
    },
  );

  it('refuses an empty or overlong ID with nothing written', async () => {
    await fcall(direct, 'bk_reserve', 'replay:fn-ids', 'standard', '1000', '0.01');
    await expect(fcall(direct, 'bk_madd', 'replay:fn-ids', 'ID', '', 'a')).rejects.toThrow(
      /ID must be a token of 1 to 64 bytes/,
    );
    await expect(fcall(direct, 'bk_madd', 'replay:fn-ids', 'ID', 'x'.repeat(65), 'a')).rejects.toThrow(
      /ID must be a token/,
    );
    expect(await direct.call('FCALL_RO', 'bk_card', '1', 'replay:fn-ids')).toBe(0);
  });
});
