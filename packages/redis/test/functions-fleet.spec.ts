import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Key } from '@bloomkit/core';
import { CuckooFilter } from '@bloomkit/cuckoo';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { createFilter } from '@bloomkit/filters';
import { binaryKeys, urlKeys } from '@bloomkit/testkit';
import { startCluster, startSingle } from '@bloomkit/testkit/redis';
import { WindowBloomFilter } from '@bloomkit/window';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  functionsVersion,
  type LocalFilter,
  RedisBloomFilter,
  type RedisFilterOptions,
} from '../src/index.js';
import { bytesOf, label, reserveArgs, runJsonClient } from './clients/support.js';

// Clients in other languages, as a mixed fleet runs them: PHP (php-redis), Python (redis-py) and redis-cli, each a
// real process on real servers (the test tools script installs php-cli, php-redis and python3-redis).

const CLIENTS = fileURLToPath(new URL('./clients/', import.meta.url));
const PYTHON = '/usr/bin/python3'; // Debian's, the one python3-redis installs for

type Language = 'php' | 'python';

/** Runs the fleet client of `language`: VERB on every key, 500 per FCALL; resolves to its replies. */
function runClient(
  language: Language,
  nodes: string,
  mode: 'single' | 'cluster',
  verb: string,
  name: string,
  keys: readonly Key[],
): Promise<number[]> {
  const [command, script] = language === 'php' ? ['php', 'fleet.php'] : [PYTHON, 'fleet.py'];
  return runJsonClient(command, [CLIENTS + script, nodes, mode, verb, name], keys);
}

const run = promisify(execFile);

/** redis-cli on `port` with `args`; its output's lines. */
async function cli(port: number, ...args: string[]): Promise<string[]> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args]);
  return stdout.trim().split('\n');
}

function localTwin(o: RedisFilterOptions): LocalFilter {
  const filter = createFilter(o.kind, {
    capacity: o.capacity,
    fpr: o.fpr,
    seed: (o.seed as number | undefined) ?? 0,
    ...(o.counterBits === undefined ? {} : { counterBits: o.counterBits }),
    ...(o.growth === undefined ? {} : { growth: o.growth }),
  });
  return (o.exceptions ? ExceptionFilter.wrap(filter) : filter) as LocalFilter;
}

const KINDS: RedisFilterOptions[] = [
  { kind: 'standard', capacity: 20_000, fpr: 0.001, seed: 21 },
  { kind: 'partitioned', capacity: 20_000, fpr: 0.001, seed: 22 },
  { kind: 'counting', capacity: 20_000, fpr: 0.001, seed: 23 },
  { kind: 'counting', capacity: 20_000, fpr: 0.001, seed: 24, counterBits: 8 },
  { kind: 'standard', capacity: 20_000, fpr: 0.001, seed: 25, exceptions: true },
  // Grows on the server: 3,000 keys chain about five sub-filters.
  { kind: 'scalable', capacity: 400, fpr: 0.001, seed: 26, growth: 1.5 },
  { kind: 'cuckoo', capacity: 20_000, fpr: 0.001, seed: 27 },
];

/** The kinds the cluster's test spreads over its nodes: the bit kinds, counting, and the cuckoo filter. */
const CLUSTER_KINDS = [...KINDS.slice(0, 3), KINDS.find((o) => o.kind === 'cuckoo')!];

/** Keys of every shape a fleet sends: URLs, non-ASCII text, raw bytes. */
function fleetKeys(count: number, tag: string, seed: number): Key[] {
  const third = Math.floor(count / 3);
  return [
    ...urlKeys(count - 2 * third, tag, seed),
    ...urlKeys(third, `ключ-${tag}-😀`, seed + 1),
    ...binaryKeys(third, seed % 256, seed),
  ];
}

describe('one node: PHP, Python and redis-cli share filters with Node', () => {
  let client: Redis;
  let port: number;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const started = await startSingle();
    ({ client, stop } = started);
    port = started.server.port;
    await RedisBloomFilter.installFunctions(client);
  });
  afterAll(async () => stop?.());

  for (const [i, options] of KINDS.entries()) {
    it(`${label(options)}: each language adds, every one reads every key, and Node agrees key for key`, async () => {
      const name = `fleet-${i}`;
      const address = `127.0.0.1:${port}`;
      expect(await cli(port, 'FCALL', 'bk_reserve', '1', name, ...reserveArgs(options))).toEqual(['OK']);
      const node = await RedisBloomFilter.open(client, name);
      const phpKeys = fleetKeys(1_500, `php${i}`, 100 + i);
      const pythonKeys = fleetKeys(1_500, `python${i}`, 200 + i);
      const cliKeys = urlKeys(20, `cli${i}`);
      const local = localTwin(options);
      const expected = [...phpKeys, ...pythonKeys].map((key) => (local.add(key) ? 1 : 0));
      expect([
        ...(await runClient('php', address, 'single', 'bk_madd', name, phpKeys)),
        ...(await runClient('python', address, 'single', 'bk_madd', name, pythonKeys)),
      ]).toEqual(expected);
      for (const key of cliKeys) {
        expect(await cli(port, 'FCALL', 'bk_add', '1', name, key)).toEqual([local.add(key) ? '1' : '0']);
      }
      const all = [...phpKeys, ...pythonKeys, ...cliKeys];
      const absent = fleetKeys(3_000, `absent${i}`, 300 + i);
      const probes = [...all, ...absent];
      const truth = probes.map((key) => (local.has(key) ? 1 : 0));
      expect(await runClient('php', address, 'single', 'bk_mexists', name, probes)).toEqual(truth);
      expect(await runClient('python', address, 'single', 'bk_mexists', name, probes)).toEqual(truth);
      expect((await node.hasMany(probes)).map(Number)).toEqual(truth);
      expect(await cli(port, 'FCALL_RO', 'bk_exists', '1', name, cliKeys[3]!)).toEqual(['1']);
      expect(await cli(port, 'FCALL_RO', 'bk_card', '1', name)).toEqual([String(local.count)]);
      expect(await node.export()).toEqual(local.serialize());
    });
  }

  it('a count window: PHP, Python and redis-cli add in turn, and the bytes are the local window’s', async () => {
    const node = await RedisBloomFilter.create(client, 'fleet-window', {
      kind: 'window',
      capacity: 1_000,
      fpr: 0.01,
      seed: 31,
    });
    const local = WindowBloomFilter.create(1_000, 0.01, { seed: 31 });
    const address = `127.0.0.1:${port}`;
    // Three times the window: generations end inside the PHP and the Python batches.
    const phpKeys = fleetKeys(1_500, 'wphp', 41);
    const pythonKeys = fleetKeys(1_500, 'wpy', 42);
    const cliKeys = urlKeys(10, 'wcli');
    expect(await runClient('php', address, 'single', 'bk_madd', 'fleet-window', phpKeys)).toEqual(
      phpKeys.map((key) => (local.add(key) ? 1 : 0)),
    );
    expect(await runClient('python', address, 'single', 'bk_madd', 'fleet-window', pythonKeys)).toEqual(
      pythonKeys.map((key) => (local.add(key) ? 1 : 0)),
    );
    for (const key of cliKeys) {
      expect(await cli(port, 'FCALL', 'bk_add', '1', 'fleet-window', key)).toEqual([
        local.add(key) ? '1' : '0',
      ]);
    }
    const probes = [...phpKeys, ...pythonKeys, ...cliKeys];
    const truth = probes.map((key) => (local.has(key) ? 1 : 0));
    expect(await runClient('php', address, 'single', 'bk_mexists', 'fleet-window', probes)).toEqual(truth);
    expect(await runClient('python', address, 'single', 'bk_mexists', 'fleet-window', probes)).toEqual(truth);
    expect((await node.hasMany(probes)).map(Number)).toEqual(truth);
    expect(await node.export()).toEqual(local.serialize());
  });

  it('a mixed fleet adding overlapping keys at once: no key accepted twice, every key present, the union’s bytes', async () => {
    for (const [i, options] of KINDS.slice(0, 3).entries()) {
      const name = `mixed-${i}`;
      const node = await RedisBloomFilter.create(client, name, options);
      const keys = fleetKeys(9_000, `mixed${i}`, 400 + i);
      // Node takes the first two thirds, PHP the last two thirds, Python the middle and both ends: every key is
      // sent by two or three processes at about the same time.
      const slices = {
        node: keys.slice(0, 6_000),
        php: keys.slice(3_000),
        python: [...keys.slice(2_000, 7_000), ...keys.slice(0, 500), ...keys.slice(8_500)],
      };
      const address = `127.0.0.1:${port}`;
      const [viaNode, viaPhp, viaPython] = await Promise.all([
        (async () => {
          const out: boolean[] = [];
          for (let at = 0; at < slices.node.length; at += 500)
            out.push(...(await node.addMany(slices.node.slice(at, at + 500))));
          return out.map(Number);
        })(),
        runClient('php', address, 'single', 'bk_madd', name, slices.php),
        runClient('python', address, 'single', 'bk_madd', name, slices.python),
      ]);
      const accepted = new Map<string, number>();
      const tally = (sent: readonly Key[], answers: readonly number[]) =>
        sent.forEach((key, j) => {
          if (answers[j] === 1) {
            const id = bytesOf(key).toString('base64');
            accepted.set(id, (accepted.get(id) ?? 0) + 1);
          }
        });
      tally(slices.node, viaNode);
      tally(slices.php, viaPhp);
      tally(slices.python, viaPython);
      expect([...accepted.values()].filter((n) => n > 1)).toEqual([]);
      // A key no one accepted was a false positive of the keys before it: at 9,000 keys of a filter for 20,000 at
      // 0.001, a handful at most.
      expect(accepted.size).toBeGreaterThan(keys.length - 30);
      expect(await node.hasMany(keys)).toEqual(keys.map(() => true));
      // The union's bytes: each key added as many times as it was sent (a counting filter's counters add up,
      // in any order).
      const local = localTwin(options);
      for (const key of [...slices.node, ...slices.php, ...slices.python]) local.add(key);
      const exported = await node.export();
      const twin = local.serialize();
      // The count is each writer's own tally (order decides which of two racing keys is new), so the bytes are
      // compared with the count field made equal: the file's count is informational (FORMAT.md §3.1).
      expect(await node.count()).toBe(accepted.size);
      expect(withoutCount(exported)).toEqual(withoutCount(twin));
    }
  });
});

describe('one node: a mixed fleet on one cuckoo filter', () => {
  let client: Redis;
  let port: number;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const started = await startSingle();
    ({ client, stop } = started);
    port = started.server.port;
    await RedisBloomFilter.installFunctions(client);
  });
  afterAll(async () => stop?.());

  it('Node, PHP, Python and redis-cli add overlapping keys at once: no key accepted twice, every key present, the union’s copies', async () => {
    // 17,030 copies of 9,000 keys fill this table to 55%. Near 80% the copies of one key crowd its two buckets and
    // the walks of a 500-item call pass the kicks it may make (refused whole: a client sends fewer per call).
    const options: RedisFilterOptions = { kind: 'cuckoo', capacity: 30_000, fpr: 0.001, seed: 44 };
    const node = await RedisBloomFilter.create(client, 'mixed-cuckoo', options);
    const keys = fleetKeys(9_000, 'mixed-cuckoo', 450);
    const slices = {
      node: keys.slice(0, 6_000),
      php: keys.slice(3_000),
      python: [...keys.slice(2_000, 7_000), ...keys.slice(0, 500), ...keys.slice(8_500)],
      cli: urlKeys(30, 'mixed-cuckoo', 450), // the first URL keys again
    };
    const address = `127.0.0.1:${port}`;
    const [viaNode, viaPhp, viaPython, viaCli] = await Promise.all([
      (async () => {
        const out: boolean[] = [];
        for (let at = 0; at < slices.node.length; at += 500)
          out.push(...(await node.addMany(slices.node.slice(at, at + 500))));
        return out.map(Number);
      })(),
      runClient('php', address, 'single', 'bk_madd', 'mixed-cuckoo', slices.php),
      runClient('python', address, 'single', 'bk_madd', 'mixed-cuckoo', slices.python),
      (async () => {
        const out: number[] = [];
        for (const key of slices.cli)
          out.push(Number((await cli(port, 'FCALL', 'bk_add', '1', 'mixed-cuckoo', key))[0]));
        return out;
      })(),
    ]);
    const accepted = new Map<string, number>();
    const tally = (sent: readonly Key[], answers: readonly number[]) =>
      sent.forEach((key, j) => {
        const id = bytesOf(key).toString('base64');
        if (answers[j] === 1) accepted.set(id, (accepted.get(id) ?? 0) + 1);
      });
    tally(slices.node, viaNode);
    tally(slices.php, viaPhp);
    tally(slices.python, viaPython);
    tally(slices.cli, viaCli);
    expect([...accepted.values()].filter((n) => n > 1)).toEqual([]);
    expect(accepted.size).toBeGreaterThan(keys.length - 30);
    expect(await node.hasMany(keys)).toEqual(keys.map(() => true));
    // The union: every copy sent is held (a cuckoo filter stores one a send), each key's copies as in the local
    // filter of all the sends. Which slot a copy sits in follows the order the writers met in, so the copies are
    // compared key by key rather than the bytes.
    const sent = [...slices.node, ...slices.php, ...slices.python, ...slices.cli];
    const local = localTwin(options) as unknown as CuckooFilter;
    for (const key of sent) local.add(key);
    const exported = CuckooFilter.deserialize(await node.export());
    expect(exported.size).toBe(sent.length);
    expect(await node.count()).toBe(sent.length);
    expect(keys.map((key) => exported.countOf(key))).toEqual(keys.map((key) => local.countOf(key)));
  });
});

/** A single-filter file (kinds 1–3) with its count field and checksum zeroed: its bits and parameters. */
function withoutCount(file: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(file);
  copy.fill(0, 24 + 16, 24 + 24); // the params block starts at 24 (docs/FORMAT.md §1); count at 16 in it (§3.1)
  copy.fill(0, copy.length - 4);
  return copy;
}

describe('a 3-node cluster: the library on every primary, clients route by the filter’s name', () => {
  let cluster: Cluster;
  let nodes: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const started = await startCluster(3);
    ({ client: cluster, stop } = started);
    nodes = started.servers.map((s) => `127.0.0.1:${s.port}`).join(',');
  });
  afterAll(async () => stop?.());

  it('installs on every primary, and PHP, Python and Node fill filters on every node alike', async () => {
    const status = await RedisBloomFilter.installFunctions(cluster);
    expect(status.map((s) => s.version)).toEqual(Array(3).fill(functionsVersion()));
    // Names whose slots fall on every node.
    const names = Array.from({ length: 9 }, (_, j) => `spread-${j}`);
    for (const [j, name] of names.entries()) {
      const options = CLUSTER_KINDS[j % CLUSTER_KINDS.length]!;
      await RedisBloomFilter.create(cluster, name, options);
      const phpKeys = fleetKeys(600, `cphp${j}`, 500 + j);
      const pythonKeys = fleetKeys(600, `cpy${j}`, 600 + j);
      const local = localTwin(options);
      const expected = [...phpKeys, ...pythonKeys].map((key) => (local.add(key) ? 1 : 0));
      const [viaPhp, viaPython] = await Promise.all([
        runClient('php', nodes, 'cluster', 'bk_madd', name, phpKeys),
        runClient('python', nodes, 'cluster', 'bk_madd', name, pythonKeys),
      ]);
      expect([...viaPhp, ...viaPython]).toEqual(expected);
      const handle = await RedisBloomFilter.open(cluster, name);
      expect(await handle.export()).toEqual(local.serialize());
      expect(await cluster.call('FCALL_RO', 'bk_card', '1', name)).toBe(local.count);
    }
    // The filters live on every primary.
    const holding = await Promise.all(
      cluster.nodes('master').map(async (primary) => (await primary.keys('bloomkit:{spread-*}:meta')).length),
    );
    expect(holding.filter((n) => n > 0).length).toBe(3);
  });
  it('a blocked filter across the cluster: PHP routes each key to its shard by the shard rule, Node reads it back', async () => {
    await RedisBloomFilter.installFunctions(cluster);
    const options: RedisFilterOptions = {
      kind: 'blocked',
      capacity: 60_000,
      fpr: 0.01,
      seed: 0x9747b28c,
      shards: 24,
    };
    const node = await RedisBloomFilter.create(cluster, 'crawler:blocked', options);
    const keys = fleetKeys(6_000, 'blocked', 77);
    const local = createFilter('blocked', { capacity: 60_000, fpr: 0.01, seed: 0x9747b28c });
    const expected = keys.map((key) => (local.add(key) ? 1 : 0));
    expect(await runBlocked('add', nodes, 'crawler:blocked', keys)).toEqual(expected);
    expect(await node.hasMany(keys)).toEqual(keys.map(() => true));
    expect(await node.export()).toEqual(local.serialize());
    expect(await node.count()).toBe(local.count);
    const absent = fleetKeys(3_000, 'blocked-absent', 78);
    expect(await runBlocked('has', nodes, 'crawler:blocked', [...keys.slice(0, 500), ...absent])).toEqual(
      [...keys.slice(0, 500), ...absent].map((key) => (local.has(key) ? 1 : 0)),
    );
    // The shards are spread over the three primaries.
    const holding = await Promise.all(
      cluster
        .nodes('master')
        .map(async (primary) => (await primary.keys('bloomkit:{crawler:blocked/*}:shard:*')).length),
    );
    expect(holding.every((n) => n > 0)).toBe(true);
  });
});

/** The PHP client of a blocked filter (test/clients/blocked.php): routes by the shard rule; its answers. */
function runBlocked(
  action: 'add' | 'has',
  nodes: string,
  name: string,
  keys: readonly Key[],
): Promise<number[]> {
  return runJsonClient('php', [`${CLIENTS}blocked.php`, nodes, action, name], keys);
}
