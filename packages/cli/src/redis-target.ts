import type { RedisBloomFilter } from '@bloomkit/redis';
import { CliError } from './errors.js';
import { type Interrupts, NEVER_INTERRUPTED } from './interrupts.js';
import { readSmallFile } from './small-file.js';

/** How long a connection may take before the command gives up, in ms: the server's first answer included. */
export const CONNECT_TIMEOUT_MS = 3000;

/**
 * How long any later reply may take, in ms: a function call holds a server at most 100 ms (its budget), and a
 * chunk of a filter's bytes is a few MB, so a reply this late is a server that is stopped, swapping or cut off.
 */
export const REPLY_TIMEOUT_MS = 10_000;

/** The connection flags every Redis command takes (`--cluster`, `--password-file`, `--tls-*`). */
export interface RedisConnectionFlags {
  readonly cluster?: boolean | undefined;
  readonly passwordFile?: string | undefined;
  readonly tlsCa?: string | undefined;
  readonly tlsCert?: string | undefined;
  readonly tlsKey?: string | undefined;
}

/**
 * A filter in Redis, as the command line names it: `redis://[user[:password]@]host[:port]/NAME[?db=N]` (`rediss://`:
 * TLS), with the password from the URL, `--password-file` or the REDISCLI_AUTH variable (redis-cli's), in that
 * order, and TLS files from `--tls-ca`, `--tls-cert`, `--tls-key`.
 */
export interface RedisTarget {
  readonly url: URL;
  /** The server: the URL's host (default 127.0.0.1) and port (default 6379). */
  readonly host: string;
  readonly port: number;
  /** The filter's name: the URL's path, decoded (never a database number: that is `?db=N`). */
  readonly name: string;
  readonly cluster: boolean;
  readonly db: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** TLS options for the connection (`rediss://`), else undefined. */
  readonly tls: { ca?: Buffer; cert?: Buffer; key?: Buffer } | undefined;
}

/** The server as messages name it: `redis://host:port`. */
function serverOf(target: RedisTarget): string {
  return `${target.url.protocol}//${target.host}:${target.port}`;
}

export async function parseRedisTarget(
  text: string,
  flags: RedisConnectionFlags = {},
  env: Record<string, string | undefined> = process.env,
  names: 'filter' | 'server' = 'filter',
  interrupts: Interrupts = NEVER_INTERRUPTED,
): Promise<RedisTarget> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${text}: not a Redis URL (expected redis://host:port/NAME)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new CliError(`${text}: not a Redis URL (expected redis://host:port/NAME or rediss:// for TLS)`);
  }
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (names === 'server') {
    if (name !== '') {
      throw new CliError(`${text}: this command takes a server, redis://host:port, without a filter's name`);
    }
  } else if (name === '')
    throw new CliError(`${text}: the URL's path must name the filter, as in redis://host:6379/seen`);
  if (/^\d+$/.test(name)) {
    throw new CliError(
      `${text}: "${name}" would be a filter named by digits, where redis-cli reads a database number; name the filter (redis://host:6379/seen) and choose a database with ?db=${name}`,
    );
  }
  const cluster = flags.cluster === true;
  const db = databaseOf(text, url, cluster);
  const password = await passwordOf(text, url, flags, env, interrupts);
  const tls = await tlsOf(text, url, flags, interrupts);
  return {
    url,
    host: url.hostname || '127.0.0.1',
    port: Number(url.port || 6379),
    name,
    cluster,
    db,
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password,
    tls,
  };
}

/** `?db=N`, the only query parameter: a database index (0 by default; a cluster has only 0). */
function databaseOf(text: string, url: URL, cluster: boolean): number {
  for (const key of url.searchParams.keys()) {
    if (key !== 'db') throw new CliError(`${text}: unknown URL parameter "${key}" (only ?db=N is read)`);
  }
  const value = url.searchParams.get('db');
  if (value === null) return 0;
  if (!/^\d{1,9}$/.test(value)) {
    throw new CliError(`${text}: ?db must be a database index, an integer in [0, 999999999], got "${value}"`);
  }
  const db = Number(value);
  if (cluster && db !== 0) throw new CliError(`${text}: a Redis Cluster has database 0 only, got ?db=${db}`);
  return db;
}

/** The most read of a --password-file (a password is a line; this only keeps a wrong file from filling memory). */
const PASSWORD_FILE_BYTES = 64 * 1024;
/** The most read of a --tls-ca, --tls-cert or --tls-key file (a system's whole CA bundle is about 220 KB). */
const TLS_FILE_BYTES = 16 * 1024 * 1024;

/** The password: the URL's, else the first line of --password-file, else REDISCLI_AUTH; one source only. */
async function passwordOf(
  text: string,
  url: URL,
  flags: RedisConnectionFlags,
  env: Record<string, string | undefined>,
  interrupts: Interrupts,
): Promise<string | undefined> {
  if (url.password !== '') {
    if (flags.passwordFile !== undefined) {
      throw new CliError(`${text}: give the password once: in the URL or with --password-file, not both`);
    }
    return decodeURIComponent(url.password);
  }
  if (flags.passwordFile !== undefined) {
    const content = (
      await readSmallFile(flags.passwordFile, '--password-file', PASSWORD_FILE_BYTES, interrupts)
    ).toString('utf8');
    const password = content.replace(/\r?\n$/, '');
    if (password === '' || password.includes('\n')) {
      throw new CliError(`--password-file: ${flags.passwordFile} must hold the password on one line`);
    }
    return password;
  }
  const variable = env.REDISCLI_AUTH;
  return variable === undefined || variable === '' ? undefined : variable;
}

/** TLS for `rediss://`: the CA, certificate and key files, read now (so a missing file is one clear error). */
async function tlsOf(
  text: string,
  url: URL,
  flags: RedisConnectionFlags,
  interrupts: Interrupts,
): Promise<RedisTarget['tls']> {
  const files = { ca: flags.tlsCa, cert: flags.tlsCert, key: flags.tlsKey };
  const given = Object.entries(files).filter(([, file]) => file !== undefined);
  if (url.protocol === 'redis:') {
    if (given.length > 0) {
      throw new CliError(
        `${text}: --tls-${given[0]![0]} needs a TLS connection: write rediss:// instead of redis://`,
      );
    }
    return undefined;
  }
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new CliError(`${text}: --tls-cert and --tls-key go together (a client certificate and its key)`);
  }
  const tls: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
  for (const [field, file] of given) {
    tls[field as 'ca' | 'cert' | 'key'] = await readSmallFile(
      file!,
      `--tls-${field}`,
      TLS_FILE_BYTES,
      interrupts,
    );
  }
  return tls;
}

/** The modules for Redis, loaded only by the commands that use them (a local command never pays for them). */
async function redisModules() {
  const [{ Redis, Cluster }, redis] = await Promise.all([import('ioredis'), import('@bloomkit/redis')]);
  return { Redis, Cluster, RedisBloomFilter: redis.RedisBloomFilter };
}

/**
 * The ioredis options of a target: its credentials, TLS and database, and a connection that fails fast: no
 * reconnect (a refused port fails at its first attempt), at most {@link CONNECT_TIMEOUT_MS} to connect, and at most
 * {@link REPLY_TIMEOUT_MS} for each reply (ioredis's commandTimeout, counted from when a command is issued, so a
 * command queued while the connection waits for a silent server's first answer is bounded too).
 */
export function clientOptions(target: RedisTarget) {
  return {
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.tls === undefined ? {} : { tls: target.tls }),
    db: target.db,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: REPLY_TIMEOUT_MS,
    maxRetriesPerRequest: 2,
    retryStrategy: (): null => null,
  };
}

/**
 * Connects to the target and runs `use` with the client and the filter class; disconnects afterwards, whatever
 * happens. A connection that fails is reported once (never retried), within {@link CONNECT_TIMEOUT_MS} for a server
 * that does not answer its first PING, as one line that says what to do (see {@link explainRedisFailure}); a later
 * reply that does not come within {@link REPLY_TIMEOUT_MS} fails the run the same way. A stop signal (SIGINT,
 * SIGTERM, SIGHUP) ends the wait: the connection is closed and the run exits 128 + the signal's number with a line
 * saying what it was doing (`doing`, e.g. "pulling crawler-seen"). `graceMs`: how long a run that stops on its own
 * at a signal (dedup finishes its batch, prints what Redis acknowledged and exits) is given before it is cut off.
 */
export async function withRedis<T>(
  target: RedisTarget,
  doing: string,
  interrupts: Interrupts,
  use: (
    client: import('ioredis').Redis | import('ioredis').Cluster,
    Filter: typeof RedisBloomFilter,
  ) => Promise<T>,
  graceMs = 0,
): Promise<T> {
  const { Redis, Cluster, RedisBloomFilter } = await redisModules();
  const options = clientOptions(target);
  const { host, port } = target;
  const client = target.cluster
    ? new Cluster([{ host, port }], { redisOptions: options, clusterRetryStrategy: () => null })
    : new Redis({ host, port, ...options });
  let failure: Error | undefined;
  client.on('error', (error: Error) => {
    failure ??= error;
  });
  let cancel: () => void = () => undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const stop = () =>
      reject(
        new CliError(
          `${serverOf(target)}: interrupted while ${doing}${graceMs > 0 ? ', with no reply to what was in flight' : ''}`,
        ),
      );
    cancel = interrupts.onStop(() => {
      if (graceMs === 0) stop();
      else grace = setTimeout(stop, graceMs);
    });
  });
  stopped.catch(() => undefined);
  let firstAnswer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<never>((_, reject) => {
    firstAnswer = setTimeout(
      () =>
        reject(
          new CliError(
            `${serverOf(target)}: no answer within ${CONNECT_TIMEOUT_MS / 1000} s while ${doing}: the server accepted the connection but does not reply (stopped, swapping, or not a Redis server)`,
          ),
        ),
      CONNECT_TIMEOUT_MS,
    );
  });
  silent.catch(() => undefined);
  try {
    if (interrupts.interrupted) throw new CliError(`${serverOf(target)}: interrupted while ${doing}`);
    await Promise.race([client.ping(), silent, stopped]);
    clearTimeout(firstAnswer);
    return await Promise.race([use(client, RedisBloomFilter), stopped]);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (isTimeout(error)) {
      throw new CliError(
        `${serverOf(target)}: no reply within ${REPLY_TIMEOUT_MS / 1000} s while ${doing}: the server stopped answering (stopped, swapping, or the link is cut)`,
      );
    }
    const explained = explainRedisFailure(target, error, failure);
    if (explained !== undefined) throw new CliError(`${serverOf(target)}: ${explained}`);
    throw error;
  } finally {
    clearTimeout(firstAnswer);
    clearTimeout(grace);
    cancel();
    client.disconnect();
  }
}

/** ioredis's commandTimeout rejection ("Command timed out"), in the error or what it wraps. */
function isTimeout(error: unknown): boolean {
  return chainOf(error).some((e) => /^Command timed out/.test(e.message));
}

/** An error and the errors it wraps (a cluster's last node error, a cause). */
function chainOf(error: unknown): Error[] {
  const out: Error[] = [];
  let at: unknown = error;
  while (at instanceof Error && out.length < 5) {
    out.push(at);
    at = (at as { lastNodeError?: unknown }).lastNodeError ?? (at as { cause?: unknown }).cause;
  }
  return out;
}

/**
 * What went wrong with the connection or the server, as one line that says what to do; undefined for anything
 * that is not the server's or the connection's (a bug keeps its stack). NOAUTH, WRONGPASS, NOPERM, a refused or
 * silent port, and TLS verification each get their own line; any other server reply (OOM, WRONGTYPE, …) is the
 * server's own message.
 */
export function explainRedisFailure(
  target: RedisTarget,
  error: unknown,
  failure?: Error,
): string | undefined {
  const errors = [...chainOf(failure), ...chainOf(error)];
  const codes = errors.map((e) => String((e as { code?: unknown }).code ?? ''));
  const messages = errors.map((e) => e.message);
  const has = (pattern: RegExp) => messages.some((m) => pattern.test(m));
  const where = `${target.host}:${target.port}`;
  if (codes.includes('ECONNREFUSED') || has(/ECONNREFUSED/)) {
    return `connection refused: no Redis server listens on ${where}`;
  }
  if (codes.includes('ETIMEDOUT') || has(/connect ETIMEDOUT/)) {
    return `no answer within ${CONNECT_TIMEOUT_MS / 1000} s: check the host, the port and any firewall between`;
  }
  if (codes.includes('ENOTFOUND') || has(/ENOTFOUND|EAI_AGAIN/)) return `unknown host ${target.url.hostname}`;
  if (has(/Protocol error|Please report this/i)) {
    return `the server on ${where} does not speak Redis's protocol (an HTTP server or another service on that port?): check the port`;
  }
  if (has(/WRONGPASS|invalid username-password pair/i)) {
    return 'wrong user name or password (WRONGPASS): check REDISCLI_AUTH, --password-file or the URL';
  }
  if (has(/NOAUTH/)) {
    return 'the server needs a password (NOAUTH): set REDISCLI_AUTH, or give --password-file FILE (a password in the URL is visible to ps)';
  }
  const noPermission = messages.find((m) => /NOPERM/.test(m));
  if (noPermission !== undefined) {
    return `the server refused a command to this user (${noPermission}): its ACL needs the commands the @bloomkit/redis README lists under "Users and ACLs"`;
  }
  const tls = errors.find((e) =>
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_SSL|ERR_TLS/.test(String((e as { code?: unknown }).code ?? '')),
  );
  if (tls !== undefined) {
    return `TLS: ${tls.message}: give the certificate authority that signed the server's certificate with --tls-ca FILE`;
  }
  const reply = errors.find((e) => e.name === 'ReplyError');
  if (reply !== undefined) return reply.message;
  if (failure !== undefined) return failure.message;
  return undefined;
}
