import { FormatError, MAX_HASHES } from '@bloomkit/core';
import { FAMILIES } from './families/index.js';
import { metaKey } from './keys.js';
import { redisKind, redisKindNames } from './kinds.js';
import { MetaFields } from './meta-fields.js';
import { FORMAT_TAG, MAX_U32, type RedisFilterParams } from './params.js';

/**
 * Reads the meta hash back (HGETALL's reply) and checks it as a file header is checked: it is untrusted input
 * (any client can write the hash), and what it says is about to be allocated and looped over. Every field must be
 * what {@link encodeParams} writes for a filter this package can create: each within the format's limits (k in
 * [1, MAX_HASHES], a Redis string at most 2^32 bits, at most MAX_SUB_FILTERS sub-filters…) and consistent with the
 * others (m a whole number of the layout's units, the shard count the one m needs, a scalable filter's `bits`
 * and `hashes` those of the first of its `shapes`). Anything else is a FormatError naming the field, before any use.
 */
export function decodeParams(where: string, name: string, fields: Record<string, string>): RedisFilterParams {
  if (fields.format !== FORMAT_TAG) {
    throw new FormatError(
      `${where}: the Redis key ${metaKey(name)} is not a bloomkit filter (format field ${JSON.stringify(fields.format)})`,
    );
  }
  const found = redisKind(fields.kind);
  if (found === undefined) {
    throw new FormatError(
      `${where}: unknown kind ${JSON.stringify(fields.kind)} (known: ${redisKindNames().join(', ')})`,
    );
  }
  const { storage } = found;
  const record = found.Class.kind;
  const kind = record.name;
  const meta = new MetaFields(where, name, fields);
  const seed = meta.int('seed', 0, MAX_U32);
  const hashes = meta.int('hashes', 1, MAX_HASHES);
  // Absent in a hash written before exceptions existed: none.
  const exceptions = fields.exceptions === undefined ? false : meta.int('exceptions', 0, 1) === 1;
  const family = FAMILIES[storage];
  if (exceptions && !family.exceptions) {
    throw meta.bad('exceptions', `0 for a ${kind} filter (exceptions live beside bits)`);
  }
  const sized = fields.capacity !== '' || fields.fpr !== '' || family.alwaysSized;
  const capacity = sized ? meta.int('capacity', 1, Number.MAX_SAFE_INTEGER) : null;
  const fpr = sized ? meta.rate('fpr') : null;
  // Absent in a hash written before windows existed: 0.
  const duration = fields.duration === undefined ? 0 : meta.int('duration', 0, Number.MAX_SAFE_INTEGER);
  if (duration !== 0 && !family.timed) throw meta.bad('duration', `0 for a ${kind} filter`);
  return family.decode(meta, { kind, seed, hashes, capacity, fpr, exceptions, duration }, record);
}
