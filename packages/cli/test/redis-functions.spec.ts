import { type RedisProcess, startCluster, startRedis } from '@bloomkit/testkit/redis';
import type { Cluster } from 'ioredis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

// `bloomkit redis functions install|status|remove` on one server and on a 3-node cluster, and on servers that hold
// a library named bloomkit that is not this one (broken, or edited by hand).

const dir = scratchDirectory();
let single: RedisProcess;
let cluster: { servers: RedisProcess[]; client: Cluster; stop: () => Promise<void> };

beforeAll(async () => {
  [single, cluster] = await Promise.all([startRedis(), startCluster(3)]);
});
afterAll(async () => {
  single?.kill();
  await cluster?.stop();
});

const env = () => {
  const { REDISCLI_AUTH: _, ...rest } = process.env;
  return rest;
};
const run = (...args: string[]) => bloomkit(['redis', 'functions', ...args], { cwd: dir, env: env() });
const VERSION = /bloomkit functions version (\d+)$/;

describe('redis functions on a cluster', () => {
  it('status, install and remove name every primary, one line each', async () => {
    const url = `redis://127.0.0.1:${cluster.servers[0]!.port}`;
    const none = await run('status', url, '--cluster');
    expect([none.status, none.stderr]).toEqual([0, '']);
    const lines = none.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^127\.0\.0\.1:\d+\tnone$/);
    const installed = await run('install', url, '--cluster');
    expect([installed.status, installed.stderr]).toEqual([0, '']);
    expect(
      installed.stdout
        .trimEnd()
        .split('\n')
        .every((line) => VERSION.test(line)),
    ).toBe(true);
    const removed = await run('remove', url, '--cluster');
    expect([removed.status, removed.stderr]).toEqual([0, '']);
    expect(removed.stdout.trimEnd().split('\n')).toEqual(lines);
  });
});

describe('a library named bloomkit that is not this one', () => {
  it('a broken one is reported as such and replaced by install; one edited by hand too', async () => {
    const url = `redis://127.0.0.1:${single.port}`;
    const client = new Redis({ port: single.port });
    try {
      // A library of that name without bk_version.
      await client.call(
        'FUNCTION',
        'LOAD',
        'REPLACE',
        "#!lua name=bloomkit\nredis.register_function('bk_other', function() return 1 end)",
      );
      const broken = await run('status', url);
      expect([broken.status, broken.stdout, broken.stderr]).toEqual([
        0,
        `127.0.0.1:${single.port}\ta library named bloomkit that answers no version (install replaces it)\n`,
        '',
      ]);
      const installed = await run('install', url);
      expect(installed.stdout.trim()).toMatch(VERSION);
      const version = VERSION.exec(installed.stdout.trim())![1]!;
      // The same version, edited: a comment added.
      const [library] = (await client.call(
        'FUNCTION',
        'LIST',
        'WITHCODE',
        'LIBRARYNAME',
        'bloomkit',
      )) as unknown[][];
      const code = String(library![library!.indexOf('library_code') + 1]);
      await client.call('FUNCTION', 'LOAD', 'REPLACE', `${code}\n-- edited\n`);
      const edited = await run('status', url);
      expect(edited.stdout).toBe(
        `127.0.0.1:${single.port}\tbloomkit functions version ${version}, edited by hand (install replaces it)\n`,
      );
      await run('install', url);
      expect((await run('status', url)).stdout).toBe(
        `127.0.0.1:${single.port}\tbloomkit functions version ${version}\n`,
      );
    } finally {
      client.disconnect();
    }
  });
});
