import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort, type RedisProcess, startRedis } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory, startBloomkit } from './support/run.js';

const dir = scratchDirectory();
/** Where @bloomkit/redis ships its functions library. */
const FUNCTIONS_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@bloomkit/redis/package.json')),
  'functions',
);
/** The library's version, as its file says (`local VERSION = n`). */
const FUNCTIONS_VERSION = /^local VERSION = (\d+)$/m.exec(
  readFileSync(join(FUNCTIONS_DIR, 'bloomkit.lua'), 'utf8'),
)![1];
let server: RedisProcess;
let url: (name: string) => string;

beforeAll(async () => {
  server = await startRedis();
  url = (name) => `redis://127.0.0.1:${server.port}/${name}`;
});
afterAll(() => server?.kill());

const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `https://example.com/${from + i}`);

describe('bloomkit push, pull and dedup --redis', () => {
  it('push then pull gives back the same file; an existing name needs --replace', async () => {
    const file = join(dir, 'local.bf');
    await bloomkit(['create', file, '-n', '10000', '-p', '0.01', '--kind', 'blocked'], { cwd: dir });
    await bloomkit(['add', file, '--from', '-'], { cwd: dir, input: lines(0, 500).join('\n') });
    expect((await bloomkit(['push', file, url('pushed')], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['pull', url('pushed'), join(dir, 'pulled.bf')], { cwd: dir })).status).toBe(0);
    expect(readFileSync(join(dir, 'pulled.bf'))).toEqual(readFileSync(file));
    const again = await bloomkit(['push', file, url('pushed')], { cwd: dir });
    expect([again.status, again.stderr]).toEqual([
      2,
      `bloomkit: ${url('pushed')}: a filter named "pushed" exists (use --replace)\n`,
    ]);
    expect((await bloomkit(['push', file, url('pushed'), '--replace'], { cwd: dir })).status).toBe(0);
  });

  it('dedup --redis resumes across runs and machines: a second run prints only lines the first did not', async () => {
    const first = await bloomkit(
      ['dedup', '--redis', url('stream'), '--capacity', '100000', '--fpr', '1e-6'],
      {
        cwd: dir,
        input: `${[...lines(0, 3000), ...lines(0, 1000)].join('\n')}\n`,
      },
    );
    expect(first.stdout).toBe(`${lines(0, 3000).join('\n')}\n`);
    const second = await bloomkit(['dedup', '--redis', url('stream')], {
      cwd: dir,
      input: `${lines(2000, 5000).join('\n')}\n`,
    });
    expect(second.stdout).toBe(`${lines(3000, 5000).join('\n')}\n`);
  });

  it('dedup --redis into a cuckoo filter: repeats store no copy, every first occurrence is printed, also past its room', async () => {
    // Each line ten times over: a copy per repeat filled a key's two buckets at its ninth and lost the run's lines.
    const repeated = Array.from({ length: 10 }, () => lines(0, 3000)).flat();
    const run = await bloomkit(
      ['dedup', '--redis', url('cuckoo-dedup'), '--kind', 'cuckoo', '--capacity', '5000', '--fpr', '1e-4'],
      { cwd: dir, input: `${repeated.join('\n')}\n` },
    );
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toBe(`${lines(0, 3000).join('\n')}\n`);
    const client = new Redis({ port: server.port, host: '127.0.0.1' });
    try {
      const { RedisBloomFilter } = await import('@bloomkit/redis');
      const filter = await RedisBloomFilter.open(client, 'cuckoo-dedup');
      expect(await filter.count()).toBe(3000);
      expect(await filter.countMany(lines(0, 3))).toEqual([1, 1, 1]);
      // Past its room (about 5,500 slots of 16 bits): every line is still printed once, a warning, exit 3.
      const past = await bloomkit(['dedup', '--redis', url('cuckoo-dedup')], {
        cwd: dir,
        input: `${lines(3000, 6200).join('\n')}\n`,
      });
      expect(past.status).toBe(3);
      expect(past.stderr).toMatch(/^bloomkit: cuckoo-dedup: warning: full: a new line finds no room;/m);
      const printed = past.stdout.split('\n').filter(Boolean);
      // Every line is new: all are printed but the few a false positive drops (rate 1e-4 at capacity).
      expect(printed.length).toBeGreaterThan(3_190);
      expect(new Set(printed).size).toBe(printed.length);
    } finally {
      client.disconnect();
    }
  });

  it('dedup --redis --fixed past its capacity warns once on stderr and exits 3, as with a file', async () => {
    const run = await bloomkit(
      ['dedup', '--redis', url('fixed'), '--fixed', '--capacity', '1000', '--fpr', '1e-4'],
      {
        cwd: dir,
        input: `${lines(0, 3000).join('\n')}\n`,
      },
    );
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(
      /^bloomkit: fixed: warning: now holds [\d,]+ keys, past its capacity of 1,000;/,
    );
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stdout.split('\n').filter(Boolean).length).toBeGreaterThan(2900);
    // Reopened past its capacity: warned before the first line.
    const again = await bloomkit(['dedup', '--redis', url('fixed')], { cwd: dir, input: 'x\n' });
    expect(again.status).toBe(3);
    expect(again.stderr).toMatch(/past its capacity of 1,000/);
  });

  it('a window file pushed to Redis dedups past its window without a capacity warning, and pulls back', async () => {
    const file = join(dir, 'window.bf');
    await bloomkit(['create', file, '--kind', 'window', '-n', '1000', '-p', '1e-9'], { cwd: dir });
    expect((await bloomkit(['push', file, url('recent')], { cwd: dir })).status).toBe(0);
    const run = await bloomkit(['dedup', '--redis', url('recent')], {
      cwd: dir,
      input: `${[...lines(0, 5000), ...lines(4500, 5000), ...lines(0, 500)].join('\n')}\n`,
    });
    // The last 500 of the stream repeat within the window: dropped; the first 500 were forgotten: printed again.
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toBe(`${[...lines(0, 5000), ...lines(0, 500)].join('\n')}\n`);
    expect((await bloomkit(['pull', url('recent'), join(dir, 'recent.bf')], { cwd: dir })).status).toBe(0);
    const info = JSON.parse(
      (await bloomkit(['info', join(dir, 'recent.bf'), '--json'], { cwd: dir })).stdout,
    );
    expect([info.kind, info.facts.windowKeys]).toEqual(['window', 1000]);
    // dedup --window --redis creates the window in Redis and shares it between runs (and machines).
    const input = `${[...lines(0, 5000), ...lines(4500, 5000), ...lines(0, 500)].join('\n')}\n`;
    const created = await bloomkit(
      ['dedup', '--redis', url('shared-window'), '--window', '1000', '--fpr', '1e-9'],
      {
        cwd: dir,
        input,
      },
    );
    expect([created.status, created.stdout]).toEqual([0, run.stdout]);
    const again = await bloomkit(
      ['dedup', '--redis', url('shared-window'), '--window', '1000', '--fpr', '1e-9'],
      {
        cwd: dir,
        input: `${lines(0, 500).join('\n')}\n${lines(9000, 9001).join('\n')}\n`,
      },
    );
    expect(again.stdout).toBe(`${lines(9000, 9001).join('\n')}\n`);
    const other = await bloomkit(['dedup', '--redis', url('shared-window'), '--window', '2000'], {
      cwd: dir,
      input,
    });
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/a filter named "shared-window" exists with other parameters/);
  });

  it('two processes deduplicating one stream into one filter print each line exactly once between them', async () => {
    const input = `${lines(0, 20_000).join('\n')}\n`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = startBloomkit(
          ['dedup', '--redis', url('shared'), '--capacity', '100000', '--fpr', '1e-6'],
          dir,
        );
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
        child.stdin.end(input);
      });
    const [a, b] = await Promise.all([run(), run()]);
    const printed = [...a.split('\n'), ...b.split('\n')].filter((line) => line !== '');
    expect(printed.length).toBe(20_000);
    expect(new Set(printed).size).toBe(20_000);
  });

  it('reports a bad URL or an unreachable server on one line, exit 2', async () => {
    const file = join(dir, 'local.bf');
    const bad = await bloomkit(['push', file, 'http://example.com/x'], { cwd: dir });
    expect([bad.status, bad.stderr]).toEqual([
      2,
      'bloomkit: http://example.com/x: not a Redis URL (expected redis://host:port/NAME or rediss:// for TLS)\n',
    ]);
    const noName = await bloomkit(['pull', `redis://127.0.0.1:${server.port}`, file], { cwd: dir });
    expect(noName.stderr).toMatch(/the URL's path must name the filter/);
    const closed = await freePort();
    const down = await bloomkit(['pull', `redis://127.0.0.1:${closed}/x`, join(dir, 'x.bf')], { cwd: dir });
    expect(down.status).toBe(2);
    expect(down.stderr).toMatch(
      /^bloomkit: redis:\/\/127\.0\.0\.1:\d+: connection refused: no Redis server listens/,
    );
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    // A user the server refuses Lua: the server's NOPERM as one line, no stack trace.
    const admin = new Redis({ port: server.port, lazyConnect: true });
    await admin.call('ACL', 'SETUSER', 'nolua', 'on', '>secret', '~*', '&*', '+@all', '-@scripting');
    admin.disconnect();
    const refused = await bloomkit(
      ['dedup', '--redis', `redis://nolua:secret@127.0.0.1:${server.port}/acl-filter`],
      { cwd: dir, input: 'a\n' },
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /^bloomkit: redis:\/\/127\.0\.0\.1:\d+: the server refused a command to this user \(NOPERM [^\n]*\n$/,
    );
    const missing = await bloomkit(['pull', url('no-such-filter'), join(dir, 'x.bf')], { cwd: dir });
    expect([missing.status, missing.stderr]).toEqual([
      2,
      'bloomkit: no filter named "no-such-filter" (no key bloomkit:{no-such-filter}:meta)\n',
    ]);
  });
});

describe('bloomkit redis functions', () => {
  it('install, status and remove the library; what it installs serves FCALL from redis-cli', async () => {
    const base = `redis://127.0.0.1:${server.port}`;
    const node = `127.0.0.1:${server.port}`;
    expect((await bloomkit(['redis', 'functions', 'status', base], { cwd: dir })).stdout).toBe(
      `${node}\tnone\n`,
    );
    const installed = await bloomkit(['redis', 'functions', 'install', base], { cwd: dir });
    expect([installed.status, installed.stdout]).toEqual([
      0,
      `${node}\tbloomkit functions version ${FUNCTIONS_VERSION}\n`,
    ]);
    const cli = (...args: string[]) =>
      execFileSync('redis-cli', ['-p', String(server.port), ...args], { encoding: 'utf8' }).trim();
    expect(cli('FCALL', 'bk_reserve', '1', 'from-cli', 'standard', '1000', '0.01')).toBe('OK');
    expect(cli('FCALL', 'bk_madd', '1', 'from-cli', 'a', 'b', 'a')).toBe('1\n1\n0');
    // The filter the functions made is a bloomkit filter: pull writes its file.
    expect((await bloomkit(['pull', url('from-cli'), join(dir, 'from-cli.bf')], { cwd: dir })).status).toBe(
      0,
    );
    expect(
      (await bloomkit(['has', '-v', join(dir, 'from-cli.bf'), 'a', 'b', 'c'], { cwd: dir })).stdout,
    ).toBe('a\tpresent\nb\tpresent\nc\tabsent\n');
    const removed = await bloomkit(['redis', 'functions', 'remove', base], { cwd: dir });
    expect([removed.status, removed.stdout]).toEqual([0, `${node}\tnone\n`]);
  });

  it('a fixed set built by bloomkit build is pushed, asked from redis-cli as from the file, and pulled back', async () => {
    const file = join(dir, 'blocklist.bk');
    const built = await bloomkit(['build', file, '--kind', 'fuse8', '--from', '-'], {
      cwd: dir,
      input: lines(0, 3000).join('\n'),
    });
    expect(built.status).toBe(0);
    expect((await bloomkit(['push', file, url('blocklist')], { cwd: dir })).status).toBe(0);
    const base = `redis://127.0.0.1:${server.port}`;
    expect((await bloomkit(['redis', 'functions', 'install', base], { cwd: dir })).status).toBe(0);
    const asked = [...lines(2900, 3000), ...lines(10_000, 10_400)];
    const fromFile = (await bloomkit(['has', '-v', file, ...asked], { cwd: dir })).stdout
      .trim()
      .split('\n')
      .map((line) => (line.endsWith('\tpresent') ? '1' : '0'));
    const cli = (...args: string[]) =>
      execFileSync('redis-cli', ['-p', String(server.port), ...args], { encoding: 'utf8' }).trim();
    expect(cli('FCALL_RO', 'bk_mexists', '1', 'blocklist', ...asked).split('\n')).toEqual(fromFile);
    expect(fromFile.slice(0, 100)).toEqual(Array(100).fill('1'));
    expect(cli('FCALL', 'bk_add', '1', 'blocklist', 'x')).toMatch(/fuse filter, a fixed set/);
    const dedup = await bloomkit(['dedup', '--redis', url('blocklist')], { cwd: dir, input: 'x\n' });
    expect([dedup.status, dedup.stderr]).toEqual([2, expect.stringMatching(/fixed set/)]);
    expect(
      (await bloomkit(['pull', url('blocklist'), join(dir, 'blocklist-back.bk')], { cwd: dir })).status,
    ).toBe(0);
    expect(readFileSync(join(dir, 'blocklist-back.bk'))).toEqual(readFileSync(file));
    expect((await bloomkit(['redis', 'functions', 'remove', base], { cwd: dir })).status).toBe(0);
  });

  it('refuses a newer library, an unknown action and a URL that names a filter, on one line, exit 2', async () => {
    const base = `redis://127.0.0.1:${server.port}`;
    const newer = readFileSync(join(FUNCTIONS_DIR, 'bloomkit.lua'), 'utf8').replace(
      /^local VERSION = \d+$/m,
      'local VERSION = 7',
    );
    execFileSync('redis-cli', ['-p', String(server.port), '-x', 'FUNCTION', 'LOAD', 'REPLACE'], {
      input: newer,
    });
    const refused = await bloomkit(['redis', 'functions', 'install', base], { cwd: dir });
    expect([refused.status, refused.stderr]).toEqual([
      2,
      `bloomkit: 127.0.0.1:${server.port} holds bloomkit functions version 7, newer than this package's ${FUNCTIONS_VERSION}; not replaced (install from the newer package)\n`,
    ]);
    const action = await bloomkit(['redis', 'functions', 'upgrade', base], { cwd: dir });
    expect([action.status, action.stderr]).toEqual([
      2,
      'bloomkit: redis functions: the action must be install, status or remove, got "upgrade"\n',
    ]);
    const named = await bloomkit(['redis', 'functions', 'status', `${base}/seen`], { cwd: dir });
    expect([named.status, named.stderr]).toEqual([
      2,
      `bloomkit: ${base}/seen: this command takes a server, redis://host:port, without a filter's name\n`,
    ]);
    execFileSync('redis-cli', ['-p', String(server.port), 'FUNCTION', 'DELETE', 'bloomkit']);
  });
});
