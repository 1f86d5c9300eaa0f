import type { RedisClient } from './client.js';

/**
 * Redis's eviction policies that can take one key of a filter and leave the others (README, "Expiry, drop, and other
 * clients"): `allkeys-*` evict any key when memory is short; `volatile-*` evict keys that have a TTL, so a filter
 * made with a TTL (each of its keys has one) is exposed too. A filter missing a half fails with FilterNotFoundError
 * from then on, and the keys it held are lost: under these policies a filter is a cache, not a record.
 */
const ANY_KEY = new Set(['allkeys-lru', 'allkeys-lfu', 'allkeys-random']);
const KEYS_WITH_TTL = new Set(['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl']);

/** The warning's code, for `process.on('warning')` and `--disable-warning=BLOOMKIT_EVICTION`. */
export const EVICTION_WARNING = 'BLOOMKIT_EVICTION';

const policies = new WeakMap<object, Promise<string | undefined>>();
const warned = new WeakSet<object>();

/** The server's maxmemory-policy (INFO memory, which the documented ACL allows), or undefined when it cannot tell. */
function policyOf(client: RedisClient): Promise<string | undefined> {
  let policy = policies.get(client);
  if (policy === undefined) {
    policy = client
      .info('memory')
      .then((info) => /^maxmemory_policy:(\S+)/m.exec(String(info))?.[1])
      .catch(() => undefined);
    policies.set(client, policy);
  }
  return policy;
}

/**
 * Warns once per client (process.emitWarning, code {@link EVICTION_WARNING}) when the server's eviction policy can
 * take half of the filter `name`: any `allkeys-*` policy, or a `volatile-*` one when the filter has a TTL
 * (`hasTtl`: a function, asked only then). Never fails: a server that does not say its policy is not warned about.
 */
export async function warnOfEviction(
  client: RedisClient,
  where: string,
  name: string,
  hasTtl: () => Promise<boolean>,
): Promise<void> {
  if (warned.has(client)) return;
  const policy = await policyOf(client);
  if (policy === undefined) return;
  const exposed = ANY_KEY.has(policy) || (KEYS_WITH_TTL.has(policy) && (await hasTtl().catch(() => false)));
  if (!exposed || warned.has(client)) return;
  warned.add(client);
  process.emitWarning(
    `${where}: the server's maxmemory-policy is ${policy}, which can evict one key of the filter ${JSON.stringify(name)} and keep the others; the filter then fails with FilterNotFoundError and the keys it held are lost. Set maxmemory-policy noeviction${KEYS_WITH_TTL.has(policy) ? ', or create filters without a TTL,' : ''} where a filter must keep what it acknowledged.`,
    { code: EVICTION_WARNING },
  );
}
