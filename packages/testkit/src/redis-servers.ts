import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';

/**
 * Real redis-server processes for the tests, on free loopback ports, in a temporary directory, without
 * persistence; stopped (SIGKILL, then the directory removed) by `stop()`. No mocks: the filters are tested
 * against the server their users run.
 */
export interface RedisProcess {
  readonly port: number;
  readonly process: ChildProcess;
  kill(): void;
}

/** Ports this process has handed out: the kernel may give a port just closed to the next caller. */
const handedOut = new Set<number>();

/** Listens on `port` of 127.0.0.1 (0: any), then closes; the port it had, or undefined when it was taken. */
function probePort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.on('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : undefined));
    });
  });
}

/**
 * A free TCP port on 127.0.0.1, from the kernel, that this process has not handed out before; for a cluster node
 * (`bus`), one whose cluster bus port, port + 10000, is free too (and at most 65535).
 */
export async function freePort(bus = false): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await probePort(0);
    if (port === undefined || handedOut.has(port)) continue;
    if (bus && (port + 10000 > 65535 || (await probePort(port + 10000)) === undefined)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no free loopback port found in 100 attempts');
}

/**
 * Runs `redis-cli` with `args` without blocking the event loop (a test worker that holds it too long is failed by
 * the runner, and `--cluster create` waits seconds for the nodes to join); its standard output, or a rejection
 * when it exits non-zero or outlives `timeoutMs`.
 */
function redisCli(args: readonly string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', args, { encoding: 'utf8', timeout: timeoutMs }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout);
    });
  });
}

function requireRedisServer(): void {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'redis-server is not installed: the Redis tests run real servers. Run the README test command, which installs it (apt-get install redis-server).',
    );
  }
}

/**
 * Starts one redis-server; resolves when it answers PING. `args` are more server options (`--requirepass`, ACL
 * users); `tls` serves TLS only on the port, with the certificate, key and CA files given (PING then goes through
 * `redis-cli --tls`), and `user` and `password` are what the readiness PING authenticates with.
 */
export async function startRedis(
  options: {
    cluster?: boolean;
    maxmemory?: string;
    args?: readonly string[];
    user?: string;
    password?: string;
    tls?: { cert: string; key: string; ca: string };
  } = {},
): Promise<RedisProcess> {
  requireRedisServer();
  // A port can still be taken between the check and the server's bind (another process's socket): a server that
  // exits before it answers is started again on another port, up to five times.
  for (let attempt = 1; ; attempt++) {
    const started = await startRedisOnce(await freePort(options.cluster === true), options);
    if (started !== undefined) return started;
    if (attempt === 5) throw new Error('redis-server exited before answering PING, on five ports in a row');
  }
}

/** redis-server's arguments for a server on `port` keeping its files in `dir`, as `options` ask. */
function serverArgs(port: number, dir: string, options: Parameters<typeof startRedis>[0] & object): string[] {
  const { tls } = options;
  const args = [
    ...(tls === undefined
      ? ['--port', String(port)]
      : [
          '--port',
          '0',
          '--tls-port',
          String(port),
          '--tls-cert-file',
          tls.cert,
          '--tls-key-file',
          tls.key,
          '--tls-ca-cert-file',
          tls.ca,
          '--tls-auth-clients',
          'no',
        ]),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  if (options.cluster) {
    args.push(
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      '1500',
      '--cluster-require-full-coverage',
      'no',
    );
  }
  if (options.maxmemory !== undefined)
    args.push('--maxmemory', options.maxmemory, '--maxmemory-policy', 'noeviction');
  args.push(...(options.args ?? []));
  return args;
}

/** One try of {@link startRedis} on `port`: the server, or undefined when it exited before answering PING. */
async function startRedisOnce(
  port: number,
  options: Parameters<typeof startRedis>[0] & object,
): Promise<RedisProcess | undefined> {
  const dir = mkdtempSync(join(tmpdir(), `bloomkit-redis-${port}-`));
  const { tls } = options;
  const args = serverArgs(port, dir, options);
  const ping = [
    '-p',
    String(port),
    ...(tls === undefined ? [] : ['--tls', '--cacert', tls.ca]),
    ...(options.user === undefined ? [] : ['--user', options.user]),
    ...(options.password === undefined ? [] : ['--no-auth-warning', '--pass', options.password]),
    'ping',
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const kill = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) {
      rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
    try {
      const pong = await redisCli(ping, 10_000);
      if (pong.trim() === 'PONG') break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      kill();
      throw new Error(`redis-server on port ${port} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, process: child, kill };
}

/** A single server and a client for it. */
export async function startSingle(): Promise<{
  server: RedisProcess;
  client: Redis;
  stop: () => Promise<void>;
}> {
  const server = await startRedis();
  const client = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: false });
  return {
    server,
    client,
    stop: async () => {
      client.disconnect();
      server.kill();
    },
  };
}

/**
 * A cluster of `nodes` masters (no replicas) built with `redis-cli --cluster create`, and a cluster client;
 * resolves when every node reports cluster_state:ok.
 */
export async function startCluster(
  nodes = 3,
  options: {
    maxmemory?: string;
    /**
     * Every node's `requirepass` (the default user's password, which the set-up commands use) and more server
     * options (ACL users); the returned client connects as the default user unless `clientUser` names another.
     */
    auth?: { password: string; args?: readonly string[]; clientUser?: { user: string; password: string } };
  } = {},
): Promise<{ servers: RedisProcess[]; client: Cluster; stop: () => Promise<void> }> {
  const { auth, ...serverOptions } = options;
  const servers = await Promise.all(
    Array.from({ length: nodes }, () =>
      startRedis({
        cluster: true,
        ...serverOptions,
        ...(auth === undefined
          ? {}
          : { args: ['--requirepass', auth.password, ...(auth.args ?? [])], password: auth.password }),
      }),
    ),
  );
  const cliAuth = auth === undefined ? [] : ['--no-auth-warning', '-a', auth.password];
  const stop = async () => {
    for (const server of servers) server.kill();
  };
  try {
    await redisCli([
      ...cliAuth,
      '--cluster',
      'create',
      ...servers.map((s) => `127.0.0.1:${s.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const deadline = Date.now() + 20_000;
    for (const server of servers) {
      for (;;) {
        const info = await redisCli([...cliAuth, '-p', String(server.port), 'cluster', 'info']);
        if (info.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error('the cluster did not reach cluster_state:ok');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const client = new Cluster(
    servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
    {
      clusterRetryStrategy: () => null,
      redisOptions: {
        maxRetriesPerRequest: 1,
        ...(auth === undefined
          ? {}
          : auth.clientUser === undefined
            ? { password: auth.password }
            : { username: auth.clientUser.user, password: auth.clientUser.password }),
      },
    },
  );
  return {
    servers,
    client,
    stop: async () => {
      client.disconnect();
      await stop();
    },
  };
}
export { ReplayProxy } from './replay-proxy.js';
