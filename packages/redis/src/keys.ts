import { InvalidArgumentError } from '@bloomkit/core';

/**
 * Where a filter named NAME lives. Every key of a filter that must change atomically with another shares the
 * hash tag `{NAME}` (one cluster slot): the parameters, the bits of a standard, partitioned or counting filter, the
 * sub-filters of a scalable one. A blocked filter's shards carry their own tags, `{NAME/i}`, so they spread over
 * the cluster's slots and nodes; a key touches one block, so one shard, so every operation stays atomic. A filter
 * with exceptions keeps them as sets beside its bits, in the same slot: `{NAME}` or, per shard, `{NAME/i}`.
 *
 * The storage keys end with the filter's generation G (8 hex digits), a random number drawn when the filter is
 * created and kept in its meta hash: a filter dropped (or expired) and created again under the same name gets
 * other storage keys, so a handle still open on the old one can never write into the new one.
 */
export interface FilterKeys {
  readonly meta: string;
  readonly data: string;
  sub(i: number): string;
  shard(i: number): string;
  /** The set of exception keys beside the bits (`data`) or beside shard i of a blocked filter (same slot). */
  exceptions(shard?: number): string;
}

/** The longest name accepted (a Redis key may be longer; a name is a label, not data). */
export const MAX_NAME_LENGTH = 512;

/** The meta hash of the filter `name`: where its parameters and generation are found. */
export function metaKey(name: string): string {
  return `bloomkit:{${name}}:meta`;
}

export function filterKeys(name: string, generation: number): FilterKeys {
  const g = generation.toString(16).padStart(8, '0');
  return {
    meta: metaKey(name),
    data: `bloomkit:{${name}}:data:${g}`,
    sub: (i) => `bloomkit:{${name}}:sub:${i}:${g}`,
    shard: (i) => `bloomkit:{${name}/${i}}:shard:${g}`,
    exceptions: (i) =>
      i === undefined ? `bloomkit:{${name}}:exceptions:${g}` : `bloomkit:{${name}/${i}}:exceptions:${g}`,
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
