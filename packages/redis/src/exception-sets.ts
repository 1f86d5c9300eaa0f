import type { Key } from '@bloomkit/core';
import { ExceptionFilter } from '@bloomkit/exceptions';
import type { RedisClient } from './client.js';
import type { LocalFilter } from './local.js';

/**
 * A filter's exception keys in Redis sets (one per string of its bits, in that string's slot: see bit-store.ts)
 * read into an ExceptionFilter on export and written from one on import, a batch of members at a time.
 */

/** Members per SSCAN and per SADD. */
const SET_BATCH = 1000;

/** `local` wrapped as an ExceptionFilter holding every member of `sets`. */
export async function readExceptionSets(
  client: RedisClient,
  sets: readonly string[],
  local: LocalFilter,
): Promise<ExceptionFilter> {
  const excepted = ExceptionFilter.wrap(local);
  for (const set of sets) {
    let cursor = '0';
    do {
      const [next, members] = await client.sscanBuffer(set, cursor, 'COUNT', SET_BATCH);
      for (const member of members) excepted.addException(new Uint8Array(member));
      cursor = String(next);
    } while (cursor !== '0');
  }
  return excepted;
}

/** SADDs `excepted`'s exception keys to the set `setOf` names for each, a batch at a time. */
export async function writeExceptionSets(
  client: RedisClient,
  excepted: ExceptionFilter,
  setOf: (key: Key) => string,
): Promise<void> {
  const batches = new Map<string, Buffer[]>();
  const flush = async (set: string) => {
    const members = batches.get(set)!;
    batches.delete(set);
    await client.sadd(set, ...members);
  };
  for (const key of excepted.exceptions()) {
    const set = setOf(key);
    const members = batches.get(set) ?? [];
    members.push(typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key));
    batches.set(set, members);
    if (members.length === SET_BATCH) await flush(set);
  }
  for (const set of [...batches.keys()]) await flush(set);
}
