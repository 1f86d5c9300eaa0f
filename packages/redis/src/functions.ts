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
  /** The version of its bloomkit library, or null when it has none. */
  readonly version: number | null;
}

/** The servers a library must be on: the one server, or every primary of a cluster. */
function servers(client: RedisClient): Redis[] {
  return client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
}

function address(server: Redis): string {
  return `${server.options.host ?? '127.0.0.1'}:${server.options.port ?? 6379}`;
}

async function versionOn(server: Redis): Promise<number | null> {
  const libraries = (await server.call('FUNCTION', 'LIST', 'LIBRARYNAME', FUNCTIONS_LIBRARY)) as unknown[];
  const held = libraries.some((library) => {
    const fields = library as unknown[];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'library_name' && fields[i + 1] === FUNCTIONS_LIBRARY) return true;
    }
    return false;
  });
  if (!held) return null;
  const version = Number(await server.call('FCALL_RO', 'bk_version', '0'));
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new RedisFilterError(
      `${address(server)} holds a library named ${FUNCTIONS_LIBRARY} whose bk_version is not a version: ${String(version)}`,
    );
  }
  return version;
}

/** The version of the bloomkit library on the server, or on each primary of a cluster (null: none there). */
export async function functionsStatus(client: RedisClient): Promise<FunctionsStatus[]> {
  return Promise.all(
    servers(client).map(async (server) => ({ node: address(server), version: await versionOn(server) })),
  );
}

/**
 * Loads the library on the server (a cluster: on every primary; replicas follow). A server that holds it at the
 * same version is left alone; an older one is replaced; a newer one is refused with a RedisFilterError before any
 * server is changed, so a rollout of an older package never downgrades the fleet's functions. Needs `FUNCTION` in
 * the user's ACL (using the verbs needs only `FCALL` and `FCALL_RO`).
 */
export async function installFunctions(client: RedisClient): Promise<FunctionsStatus[]> {
  const ours = functionsVersion();
  const before = await functionsStatus(client);
  const newer = before.find((status) => status.version !== null && status.version > ours);
  if (newer !== undefined) {
    throw new RedisFilterError(
      `installFunctions: ${newer.node} holds bloomkit functions version ${newer.version}, newer than this package's ${ours}; not replaced (install from the newer package)`,
    );
  }
  const code = functionsSource();
  await Promise.all(
    servers(client).map(async (server, i) => {
      if (before[i]!.version !== ours) await server.call('FUNCTION', 'LOAD', 'REPLACE', code);
    }),
  );
  return functionsStatus(client);
}

/** Deletes the bloomkit library from the server (a cluster: every primary that holds it). Filters stay. */
export async function removeFunctions(client: RedisClient): Promise<FunctionsStatus[]> {
  const before = await functionsStatus(client);
  await Promise.all(
    servers(client).map(async (server, i) => {
      if (before[i]!.version !== null) await server.call('FUNCTION', 'DELETE', FUNCTIONS_LIBRARY);
    }),
  );
  return functionsStatus(client);
}
