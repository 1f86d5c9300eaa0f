import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './client.js';
import { RedisFilterError } from './errors.js';

/**
 * bloomkit's Redis Functions library (`functions/bloomkit.lua` of this package): the verbs `bk_reserve`, `bk_add`,
 * `bk_madd`, `bk_exists`… that let a client in any language use a filter of this package with one FCALL, hashing and
 * positions computed on the server exactly as here (docs/FORMAT.md §4–5). Its `VERSION` line is the library's
 * version: `FCALL_RO bk_version 0` answers it, and an install never replaces a newer one.
 */

/** The library's name on the server (`#!lua name=bloomkit`). */
export const FUNCTIONS_LIBRARY = 'bloomkit';

let source: string | undefined;

/** The library's Lua source, as an operator loads it with `redis-cli -x FUNCTION LOAD REPLACE < bloomkit.lua`. */
export function functionsSource(): string {
  source ??= readFileSync(new URL('../functions/bloomkit.lua', import.meta.url), 'utf8');
  return source;
}

/** The version this package ships (the source's `local VERSION = n`). */
export function functionsVersion(): number {
  const found = /^local VERSION = (\d+)$/m.exec(functionsSource());
  if (found === null) throw new RedisFilterError('functions/bloomkit.lua has no VERSION line');
  return Number(found[1]);
}

/** What one server (a cluster: each primary) holds. */
export interface FunctionsStatus {
  /** `host:port` of the server. */
  readonly node: string;
  /**
   * The version of its bloomkit library, or null when it has none; 0 for a library named bloomkit that answers no
   * version (broken, or not this one): `installFunctions` replaces it.
   */
  readonly version: number | null;
  /** True when the library holds this package's version but not its text (edited by hand): install replaces it. */
  readonly modified: boolean;
}

/**
 * The servers a library must be on: the one server, or every primary of a cluster, once the cluster client knows
 * them (a cluster client lists no node before its first command has loaded the slots).
 */
async function servers(client: RedisClient): Promise<Redis[]> {
  if (!client.isCluster) return [client as Redis];
  const cluster = client as Cluster;
  if (cluster.status !== 'ready') await cluster.ping();
  const primaries = cluster.nodes('master');
  if (primaries.length === 0) throw new RedisFilterError('functions: the cluster lists no primary node');
  return primaries;
}

function address(server: Redis): string {
  return `${server.options.host ?? '127.0.0.1'}:${server.options.port ?? 6379}`;
}

async function statusOn(server: Redis): Promise<FunctionsStatus> {
  const node = address(server);
  const libraries = (await server.call(
    'FUNCTION',
    'LIST',
    'WITHCODE',
    'LIBRARYNAME',
    FUNCTIONS_LIBRARY,
  )) as unknown[];
  let code: string | undefined;
  for (const library of libraries) {
    const fields = library as unknown[];
    const named = fields.some((field, i) => field === 'library_name' && fields[i + 1] === FUNCTIONS_LIBRARY);
    const at = fields.indexOf('library_code');
    if (named) code = at >= 0 ? String(fields[at + 1]) : '';
  }
  if (code === undefined) return { node, version: null, modified: false };
  const version = await server.call('FCALL_RO', 'bk_version', '0').then(Number, () => 0);
  // A library of that name with no version or another answer is not this one: version 0, which install replaces.
  if (!Number.isSafeInteger(version) || version < 1) return { node, version: 0, modified: false };
  return { node, version, modified: version === functionsVersion() && code !== functionsSource() };
}

async function statusOf(primaries: readonly Redis[]): Promise<FunctionsStatus[]> {
  return Promise.all(primaries.map(statusOn));
}

/** The version of the bloomkit library on the server, or on each primary of a cluster (null: none there). */
export async function functionsStatus(client: RedisClient): Promise<FunctionsStatus[]> {
  return statusOf(await servers(client));
}

/**
 * Loads the library on the server (a cluster: on every primary; replicas follow). A server that holds this very
 * library is left alone; an older version, a broken one (version 0) or this version edited by hand is replaced; a
 * newer one is refused with a RedisFilterError before any server is changed, so a rollout of an older package never
 * downgrades the fleet's functions. Needs `FUNCTION` in the user's ACL (using the verbs needs only `FCALL` and
 * `FCALL_RO`).
 */
export async function installFunctions(client: RedisClient): Promise<FunctionsStatus[]> {
  const ours = functionsVersion();
  const primaries = await servers(client);
  const before = await statusOf(primaries);
  const newer = before.find((status) => status.version !== null && status.version > ours);
  if (newer !== undefined) {
    throw new RedisFilterError(
      `installFunctions: ${newer.node} holds bloomkit functions version ${newer.version}, newer than this package's ${ours}; not replaced (install from the newer package)`,
    );
  }
  const code = functionsSource();
  await Promise.all(
    primaries.map(async (server, i) => {
      const held = before[i]!;
      if (held.version !== ours || held.modified) await server.call('FUNCTION', 'LOAD', 'REPLACE', code);
    }),
  );
  return statusOf(primaries);
}

/** Deletes the bloomkit library from the server (a cluster: every primary that holds it). Filters stay. */
export async function removeFunctions(client: RedisClient): Promise<FunctionsStatus[]> {
  const primaries = await servers(client);
  const before = await statusOf(primaries);
  await Promise.all(
    primaries.map(async (server, i) => {
      if (before[i]!.version !== null) await server.call('FUNCTION', 'DELETE', FUNCTIONS_LIBRARY);
    }),
  );
  return statusOf(primaries);
}
