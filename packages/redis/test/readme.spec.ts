import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runQuickStart } from '@bloomkit/testkit';
import { type RedisProcess, startRedis } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

let server: RedisProcess;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.kill());

describe('README Quick start', () => {
  it('runs against a real server and prints what its comments say', async () => {
    // The README connects to 127.0.0.1:6379; here the same code reaches this test's server.
    const port = server.port;
    const ioredis = {
      Redis: class extends Redis {
        constructor() {
          super({ host: '127.0.0.1', port });
        }
      },
    };
    const { printed, expected } = await runQuickStart(new URL('../README.md', import.meta.url).pathname, {
      '@bloomkit/redis': pkg,
      ioredis,
    });
    expect(expected.length).toBeGreaterThan(5);
    expect(printed).toEqual(expected);
  });
});

describe('README From any language', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## From any language'), readme.indexOf('## Expiry, drop'));
  const block = (language: string) => new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)![1]!;
  const onPort = (text: string) => text.replaceAll('6379', String(server.port));

  it('the redis-cli, PHP and Python examples run, in order, and print what their comments say', () => {
    const cliBin = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
    let checked = 0;
    for (const line of block('sh').split('\n')) {
      if (line.startsWith('npx -p @bloomkit/cli bloomkit ')) {
        const args = onPort(line.replace(/\s+#.*$/, ''))
          .split(/\s+/)
          .slice(4);
        expect(execFileSync(process.execPath, [cliBin, ...args], { encoding: 'utf8' })).toMatch(
          `functions version ${pkg.functionsVersion()}`,
        );
      } else if (line.startsWith('redis-cli ')) {
        const [command, expected] = line.split(/\s+# → /);
        const args = command!.trim().split(/\s+/).slice(1);
        const out = execFileSync('redis-cli', ['-p', String(server.port), ...args], { encoding: 'utf8' });
        expect(out.trim().split('\n').join(' '), line).toBe(expected);
        checked++;
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'bloomkit-readme-'));
    const run = (command: string, file: string, source: string, comment: string) => {
      writeFileSync(join(dir, file), onPort(source));
      const printed = execFileSync(command, [join(dir, file)], { encoding: 'utf8' })
        .trim()
        .split('\n');
      const expected = [...source.matchAll(new RegExp(`${comment} → (.*)$`, 'gm'))].map((m) => m[1]!.trim());
      expect(printed).toEqual(expected);
      checked += expected.length;
    };
    run('php', 'example.php', block('php'), '//');
    run('/usr/bin/python3', 'example.py', block('python'), '#');
    rmSync(dir, { recursive: true, force: true });
    expect(checked).toBe(8);
  });

  it('the user it gives can run every verb (and nothing but that user is needed)', async () => {
    const user = /^user fleet on (.*)$/m.exec(section)![1]!.split(' ');
    const admin = new Redis({ host: '127.0.0.1', port: server.port });
    await admin.call(
      'ACL',
      'SETUSER',
      'fleet',
      'on',
      ...user.map((rule) => rule.replace('>PASSWORD', '>pw')),
    );
    const fleet = new Redis({ host: '127.0.0.1', port: server.port, username: 'fleet', password: 'pw' });
    const blocked = await pkg.RedisBloomFilter.create(admin, 'crawler:blocked', {
      kind: 'blocked',
      capacity: 1_000,
      fpr: 0.01,
    });
    await pkg.RedisBloomFilter.create(admin, 'crawler:timed', {
      kind: 'window',
      capacity: 1_000,
      fpr: 0.01,
      duration: 60_000,
    });
    const info = (await fleet.call('FCALL_RO', 'bk_info', '1', 'crawler:blocked')) as (string | number)[];
    const generation = String(info[info.indexOf('Generation') + 1]);
    const calls: [string, string, string, ...string[]][] = [
      ['FCALL', 'bk_reserve', 'crawler:counting', 'counting', '100', '0.01'],
      ['FCALL', 'bk_madd', 'crawler:counting', 'a', 'b'],
      ['FCALL', 'bk_mdel', 'crawler:counting', 'a'],
      ['FCALL_RO', 'bk_mexists', 'crawler:counting', 'a', 'b'],
      ['FCALL', 'bk_insert', 'crawler:plain', 'EXCEPTIONS', 'ITEMS', 'x'],
      ['FCALL', 'bk_except', 'crawler:plain', 'x'],
      ['FCALL', 'bk_unexcept', 'crawler:plain', 'x'],
      ['FCALL_RO', 'bk_info', 'crawler:plain'],
      ['FCALL_RO', 'bk_card', 'crawler:plain'],
      ['FCALL', 'bk_shard_madd', 'crawler:blocked/0', generation, 'k'],
      ['FCALL_RO', 'bk_shard_mexists', 'crawler:blocked/0', generation, 'k'],
      ['FCALL', 'bk_shard_count', 'crawler:blocked', generation, '0'],
      ['FCALL', 'bk_reserve', 'crawler:chain', 'scalable', '2', '0.01'],
      ['FCALL', 'bk_madd', 'crawler:chain', 'a', 'b', 'c', 'd', 'e', 'f', 'g'], // grows the chain
      ['FCALL_RO', 'bk_mexists', 'crawler:chain', 'a', 'g'],
      ['FCALL', 'bk_madd_at', 'crawler:timed', String(Date.now()), 'inf', 'a'],
      ['FCALL_RO', 'bk_mexists_at', 'crawler:timed', String(Date.now()), 'inf', 'a'],
    ];
    for (const [command, verb, name, ...args] of calls) {
      // bk_shard_* refuse an item of another shard with an error reply that is not a permission's.
      const reply = await fleet
        .call(command, verb, '1', name, ...args)
        .catch((error: Error) => error.message);
      expect(String(reply), verb).not.toMatch(/NOPERM|can't run this command/);
      if (!verb.startsWith('bk_shard_')) expect(String(reply), verb).not.toMatch(/ERR/); // an answer, no error
    }
    fleet.disconnect();
    await blocked.drop();
    admin.disconnect();
  });
});
