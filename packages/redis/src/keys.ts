import { InvalidArgumentError } from '@bloomkit/core';

/**
 * Where a filter named NAME lives. Every key of a filter that must change atomically with another shares the
 * hash tag `{NAME}` (one cluster slot): the parameters, the bits of a standard, partitioned or counting filter, the
 * sub-filters of a scalable one. A blocked filter's shards carry their own tags, `{NAME/i}`, so they spread over
 * the cluster's slots and nodes; a key touches one block, so one shard, so every operation stays atomic.
 */
export interface FilterKeys {
  readonly meta: string;
  readonly data: string;
  sub(i: number): string;
  shard(i: number): string;
}

/** The longest name accepted (a Redis key may be longer; a name is a label, not data). */
export const MAX_NAME_LENGTH = 512;

export function filterKeys(name: string): FilterKeys {
  return {
    meta: `bloomkit:{${name}}:meta`,
    data: `bloomkit:{${name}}:data`,
    sub: (i) => `bloomkit:{${name}}:sub:${i}`,
    shard: (i) => `bloomkit:{${name}/${i}}:shard`,
  };
}

/** A name is a non-empty string without braces (they would change the cluster hash tag). */
export function checkName(where: string, name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH || /[{}]/.test(name)) {
    throw new InvalidArgumentError(
      `${where}: name must be a string of 1 to ${MAX_NAME_LENGTH} characters without '{' or '}', got ${JSON.stringify(name)}`,
    );
  }
  return name;
}
