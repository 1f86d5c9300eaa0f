import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, type RedisProcess, startRedis } from '@bloomkit/testkit/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONNECT_TIMEOUT_MS,
  clientOptions,
  explainRedisFailure,
  parseRedisTarget,
} from '../src/redis-target.js';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const PASSWORD = 'c0rrect-horse:battery@staple';
/** The ACL line the @bloomkit/redis README gives for a bloomkit user (section "Users and ACLs"). */
const BLOOMKIT_ACL = ['~bloomkit:*', '+@read', '+@write', '+evalsha', '+eval', '+info', '+ping'];

let withPassword: RedisProcess;
let withUsers: RedisProcess;
let withTls: RedisProcess;
let file: string;

/** A private certificate authority and a certificate for 127.0.0.1 it signed, made with openssl. */
function makeCertificates(): { ca: string; cert: string; key: string } {
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore', cwd: dir });
  openssl(
    'req',
    '-x509',
    '-new',
    '-nodes',
    '-newkey',
    'rsa:2048',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=bloomkit test CA',
  );
  openssl(
    'req',
    '-new',
    '-nodes',
    '-newkey',
    'rsa:2048',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(at('san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.crt'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.crt'),
    '-days',
    '2',
    '-extfile',
    at('san.cnf'),
  );
  return { ca: at('ca.crt'), cert: at('server.crt'), key: at('server.key') };
}

beforeAll(async () => {
  const certificates = makeCertificates();
  [withPassword, withUsers, withTls] = await Promise.all([
    startRedis({ args: ['--requirepass', PASSWORD], password: PASSWORD }),
    startRedis({
      args: [
        '--user',
        'default',
        'off',
        '--user',
        'admin',
        'on',
        `>${PASSWORD}`,
        '~*',
        '&*',
        '+@all',
        '--user',
        'bloomkit',
        'on',
        '>bloom',
        ...BLOOMKIT_ACL,
        '--user',
        'nolua',
        'on',
        '>nolua',
        '~*',
        '&*',
        '+@all',
        '-@scripting',
      ],
      user: 'admin',
      password: PASSWORD,
    }),
    startRedis({ tls: certificates }),
  ]);
  file = join(dir, 'local.bf');
  await bloomkit(['create', file, '-n', '10000', '-p', '0.01'], { cwd: dir });
  await bloomkit(['add', file, 'a', 'b', 'c'], { cwd: dir });
});
afterAll(() => {
  for (const server of [withPassword, withUsers, withTls]) server?.kill();
});

const env = (extra: Record<string, string>) => ({ ...process.env, REDISCLI_AUTH: '', ...extra });

describe('Redis passwords: REDISCLI_AUTH, --password-file, and one-line errors that say what to do', () => {
  it('takes the password from REDISCLI_AUTH, as redis-cli does, and never needs it in the URL', async () => {
    const url = `redis://127.0.0.1:${withPassword.port}/from-env`;
    const push = await bloomkit(['push', file, url], { cwd: dir, env: env({ REDISCLI_AUTH: PASSWORD }) });
    expect([push.status, push.stderr]).toEqual([0, '']);
    const pulled = join(dir, 'pulled.bf');
    expect(
      (await bloomkit(['pull', url, pulled], { cwd: dir, env: env({ REDISCLI_AUTH: PASSWORD }) })).status,
    ).toBe(0);
    expect(readFileSync(pulled)).toEqual(readFileSync(file));
    // To stdout: the same bytes.
    const toStdout = await bloomkit(['pull', url, '-'], { cwd: dir, env: env({ REDISCLI_AUTH: PASSWORD }) });
    expect([toStdout.status, toStdout.stderr]).toEqual([0, '']);
    expect(toStdout.bytes).toEqual(readFileSync(file));
  });

  it('takes the password from --password-file (its first line)', async () => {
    const secret = join(dir, 'password.txt');
    writeFileSync(secret, `${PASSWORD}\n`);
    const run = await bloomkit(
      ['dedup', '--redis', `redis://127.0.0.1:${withPassword.port}/from-file`, '--password-file', secret],
      { cwd: dir, env: env({}), input: 'x\ny\nx\n' },
    );
    expect([run.status, run.stdout, run.stderr]).toEqual([0, 'x\ny\n', '']);
  });

  it('says what to do when the password is missing (NOAUTH) or wrong (WRONGPASS)', async () => {
    const url = `redis://127.0.0.1:${withPassword.port}/refused`;
    const missing = await bloomkit(['push', file, url], { cwd: dir, env: env({}) });
    expect([missing.status, missing.stderr]).toEqual([
      2,
      `bloomkit: redis://127.0.0.1:${withPassword.port}: the server needs a password (NOAUTH): set REDISCLI_AUTH, or give --password-file FILE (a password in the URL is visible to ps)\n`,
    ]);
    const wrong = await bloomkit(['push', file, url], { cwd: dir, env: env({ REDISCLI_AUTH: 'nope' }) });
    expect([wrong.status, wrong.stderr]).toEqual([
      2,
      `bloomkit: redis://127.0.0.1:${withPassword.port}: wrong user name or password (WRONGPASS): check REDISCLI_AUTH, --password-file or the URL\n`,
    ]);
  });
});

describe('Redis ACL users', () => {
  it('works as a user with only the commands the README lists, for every kind of command', async () => {
    const url = (name: string) => `redis://bloomkit@127.0.0.1:${withUsers.port}/${name}`;
    const as = { cwd: dir, env: env({ REDISCLI_AUTH: 'bloom' }) };
    expect((await bloomkit(['push', file, url('pushed')], as)).stderr).toBe('');
    expect((await bloomkit(['pull', url('pushed'), join(dir, 'acl.bf')], as)).status).toBe(0);
    expect(readFileSync(join(dir, 'acl.bf'))).toEqual(readFileSync(file));
    for (const args of [[], ['--capacity', '100'], ['--window', '100']]) {
      const run = await bloomkit(['dedup', '--redis', url(`dedup${args.join('')}`), ...args], {
        ...as,
        input: 'a\nb\na\n',
      });
      expect([args, run.status, run.stdout, run.stderr]).toEqual([args, 0, 'a\nb\n', '']);
    }
  });

  it('names the refused command of a user without Lua (NOPERM), and where the needed commands are listed', async () => {
    const run = await bloomkit(['dedup', '--redis', `redis://nolua@127.0.0.1:${withUsers.port}/lua`], {
      cwd: dir,
      env: env({ REDISCLI_AUTH: 'nolua' }),
      input: 'a\n',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^bloomkit: redis:\/\/127\.0\.0\.1:\d+: the server refused a command to this user \(NOPERM .*'eval(sha)?'.*\): its ACL needs the commands the @bloomkit\/redis README lists under "Users and ACLs"\n$/,
    );
  });
});

describe('Redis over TLS with a private certificate authority', () => {
  it('connects with --tls-ca, and says to give it when the certificate cannot be verified', async () => {
    const url = `rediss://127.0.0.1:${withTls.port}/tls`;
    const ca = join(dir, 'ca.crt');
    const push = await bloomkit(['push', file, url, '--tls-ca', ca], { cwd: dir, env: env({}) });
    expect([push.status, push.stderr]).toEqual([0, '']);
    const pulled = join(dir, 'tls.bf');
    expect((await bloomkit(['pull', url, pulled, '--tls-ca', ca], { cwd: dir, env: env({}) })).status).toBe(
      0,
    );
    expect(readFileSync(pulled)).toEqual(readFileSync(file));
    const unverified = await bloomkit(['pull', url, pulled], { cwd: dir, env: env({}) });
    expect(unverified.status).toBe(2);
    expect(unverified.stderr).toMatch(
      /^bloomkit: rediss:\/\/127\.0\.0\.1:\d+: TLS: .*: give the certificate authority that signed the server's certificate with --tls-ca FILE\n$/,
    );
  });
});

describe('Redis URLs and unreachable servers', () => {
  it('fails a closed port at once, without retrying, with one line', async () => {
    const port = await freePort();
    // ioredis's defaults would reconnect for about 10 s; the CLI's options never reconnect (no clock is read here).
    const options = clientOptions(await parseRedisTarget(`redis://127.0.0.1:${port}/nobody`));
    expect([options.retryStrategy(), options.connectTimeout]).toEqual([null, CONNECT_TIMEOUT_MS]);
    const run = await bloomkit(['push', file, `redis://127.0.0.1:${port}/nobody`], {
      cwd: dir,
      env: env({}),
    });
    expect([run.status, run.stderr]).toEqual([
      2,
      `bloomkit: redis://127.0.0.1:${port}: connection refused: no Redis server listens on 127.0.0.1:${port}\n`,
    ]);
  });

  it('refuses a filter named by digits (redis-cli reads a database there) and reads ?db=N', async () => {
    await expect(parseRedisTarget('redis://host/0')).rejects.toThrow(
      'redis://host/0: "0" would be a filter named by digits, where redis-cli reads a database number; name the filter (redis://host:6379/seen) and choose a database with ?db=0',
    );
    expect((await parseRedisTarget('redis://host/seen?db=3', {}, {})).db).toBe(3);
    await expect(parseRedisTarget('redis://host/seen?db=x', {}, {})).rejects.toThrow(
      /\?db must be a database index/,
    );
    await expect(parseRedisTarget('redis://host/seen?db=1', { cluster: true }, {})).rejects.toThrow(
      /a Redis Cluster has database 0 only/,
    );
    await expect(parseRedisTarget('redis://host/seen?timeout=1', {}, {})).rejects.toThrow(
      /unknown URL parameter "timeout"/,
    );
    // In a real database: the filter is created in database 2, not 0.
    const run = await bloomkit(['push', file, `redis://127.0.0.1:${withPassword.port}/indb?db=2`], {
      cwd: dir,
      env: env({ REDISCLI_AUTH: PASSWORD }),
    });
    expect(run.status).toBe(0);
    const keysIn = (db: number) =>
      execFileSync(
        'redis-cli',
        [
          '-p',
          String(withPassword.port),
          '-n',
          String(db),
          '--no-auth-warning',
          '-a',
          PASSWORD,
          'keys',
          'bloomkit:{indb}*',
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(keysIn(2)).toMatch(/bloomkit:\{indb\}/);
    expect(keysIn(0)).toBe('');
  });

  it('takes the password from one place: the URL, else --password-file, else REDISCLI_AUTH', async () => {
    const secret = join(dir, 'one-line.txt');
    writeFileSync(secret, 'from-file\r\n');
    expect(
      (await parseRedisTarget('redis://:from%20url@host/f', {}, { REDISCLI_AUTH: 'env' })).password,
    ).toBe('from url');
    expect(
      (await parseRedisTarget('redis://host/f', { passwordFile: secret }, { REDISCLI_AUTH: 'env' })).password,
    ).toBe('from-file');
    expect((await parseRedisTarget('redis://host/f', {}, { REDISCLI_AUTH: 'env' })).password).toBe('env');
    expect((await parseRedisTarget('redis://host/f', {}, {})).password).toBeUndefined();
    await expect(parseRedisTarget('redis://:p@host/f', { passwordFile: secret }, {})).rejects.toThrow(
      /give the password once/,
    );
    writeFileSync(secret, '');
    await expect(parseRedisTarget('redis://host/f', { passwordFile: secret }, {})).rejects.toThrow(
      /on one line/,
    );
    await expect(parseRedisTarget('redis://host/f', { tlsCa: secret }, {})).rejects.toThrow(
      /needs a TLS connection: write rediss:\/\//,
    );
    await expect(parseRedisTarget('rediss://host/f', { tlsCert: secret }, {})).rejects.toThrow(
      /--tls-cert and --tls-key go together/,
    );
    // A file that never ends is refused at the most a password or a certificate needs, not read into memory.
    await expect(parseRedisTarget('redis://host/f', { passwordFile: '/dev/zero' }, {})).rejects.toThrow(
      '--password-file: /dev/zero is longer than 65536 bytes, the most read',
    );
    await expect(parseRedisTarget('rediss://host/f', { tlsCa: '/dev/zero' }, {})).rejects.toThrow(
      '--tls-ca: /dev/zero is longer than 16777216 bytes, the most read',
    );
    await expect(
      parseRedisTarget('redis://host/f', { passwordFile: join(dir, 'absent') }, {}),
    ).rejects.toThrow(/^--password-file: .*absent: /);
    // A FIFO (a password manager writing it when asked) is read as it is written.
    const fifo = join(dir, 'password.fifo');
    execFileSync('mkfifo', [fifo]);
    const target = parseRedisTarget('redis://host/f', { passwordFile: fifo }, {});
    await writeFile(fifo, 'through-a-fifo\n');
    expect((await target).password).toBe('through-a-fifo');
  });

  it('explains a connection that times out and a host that does not resolve', async () => {
    const target = await parseRedisTarget('redis://example.invalid:6380/f', {}, {});
    const timeout = Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    expect(explainRedisFailure(target, new Error('Connection is closed.'), timeout)).toBe(
      'no answer within 3 s: check the host, the port and any firewall between',
    );
    const unknown = Object.assign(new Error('getaddrinfo ENOTFOUND example.invalid'), { code: 'ENOTFOUND' });
    expect(explainRedisFailure(target, unknown)).toBe('unknown host example.invalid');
    const run = await bloomkit(['push', file, 'redis://example.invalid:6380/f'], { cwd: dir, env: env({}) });
    expect([run.status, run.stderr]).toEqual([
      2,
      'bloomkit: redis://example.invalid:6380: unknown host example.invalid\n',
    ]);
  });
});
