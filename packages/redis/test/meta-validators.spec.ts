import { BinaryFuseFilter } from '@bloomkit/fuse';
import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter, type RedisFilterOptions } from '../src/index.js';

// One meta validator: a meta hash is untrusted input (any client can write it), and the two doors to a filter, the
// Node client and the function library, must refuse the same hashes. Each field of a real filter's meta hash of
// every kind is set, one at a time, to each value of a pool of texts (edges of every range, other spellings of a
// number, garbage); Node (open, has, count) and the functions (bk_exists and bk_card; bk_info for a blocked filter,
// whose shards the functions reach through bk_shard_* only) must both accept it or both refuse it.
//
// One difference is by design: the functions cannot size a window (its sizing takes log1p and expm1, which Redis's
// Lua lacks, and a port would round differently), so they check a window's stored shape against its capacity
// (g = ceil(W / b), the period) but not against its fpr; the Node client checks all of it.

let client: Redis;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ client, stop } = await startSingle());
  await RedisBloomFilter.installFunctions(client);
});
afterAll(async () => {
  await stop?.();
});

const POOL = [
  ...['', '-1', '0', '1', '2', '3', '7', '8', '15', '16', '64', '65', '255', '256', '512', '1000'],
  ...['1e3', '0.5', '1.5', '0x10', ' 1', '1 ', '01', '-0', '1.0', '2.5', '0.01', 'inf', 'nan', 'abc'],
  ...['4294967295', '4294967296', '4294967264', '9007199254740991', '9007199254740992', '1e308'],
  ...['99999999999999999999', '60000', '7500', '143', '1984', '45632', '1795879643480'],
];

/** A kind made by create's options, or (a fixed set) imported from a file. */
const KINDS: readonly [string, RedisFilterOptions | (() => Uint8Array)][] = [
  ['standard', { kind: 'standard', capacity: 1_000, fpr: 0.01 }],
  ['partitioned', { kind: 'partitioned', capacity: 1_000, fpr: 0.01 }],
  ['counting', { kind: 'counting', capacity: 1_000, fpr: 0.01 }],
  ['counting8', { kind: 'counting', capacity: 1_000, fpr: 0.01, counterBits: 8 }],
  ['blocked', { kind: 'blocked', capacity: 1_000, fpr: 0.01 }],
  ['scalable', { kind: 'scalable', capacity: 1_000, fpr: 0.01 }],
  ['exceptions', { kind: 'standard', capacity: 1_000, fpr: 0.01, exceptions: true }],
  ['window', { kind: 'window', capacity: 1_000, fpr: 0.01 }],
  ['timed', { kind: 'window', capacity: 1_000, fpr: 0.01, duration: 60_000 }],
  ['cuckoo', { kind: 'cuckoo', capacity: 1_000, fpr: 0.01 }],
  ['fuse8', () => BinaryFuseFilter.build(urlKeys(1_000, 'meta-fuse8'), { seed: 4 }).serialize()],
  ['fuse16', () => BinaryFuseFilter.build(urlKeys(100, 'meta-fuse16'), { fingerprintBits: 16 }).serialize()],
];

/** 'ok', or the error's first words, for Node's open, has and count. */
async function throughNode(name: string, blocked: boolean): Promise<string> {
  try {
    const filter = await RedisBloomFilter.open(client, name);
    if (!blocked) await filter.has('x');
    await filter.count();
    return 'ok';
  } catch (error) {
    return `refused: ${(error as Error).message.slice(0, 120)}`;
  }
}

/** 'ok', or the error reply, for the functions. */
async function throughFunctions(name: string, blocked: boolean): Promise<string> {
  try {
    if (blocked) await client.call('FCALL_RO', 'bk_info', '1', name);
    else await client.call('FCALL_RO', 'bk_exists', '1', name, 'x');
    await client.call('FCALL_RO', 'bk_card', '1', name);
    return 'ok';
  } catch (error) {
    return `refused: ${(error as Error).message.slice(0, 120)}`;
  }
}

describe('the Node client and the functions refuse the same meta hashes', () => {
  for (const [label, options] of KINDS) {
    it(`${label}: every field set to each of ${POOL.length} texts`, async () => {
      const name = `meta-${label}`;
      const blocked = typeof options !== 'function' && options.kind === 'blocked';
      let filter: RedisBloomFilter;
      if (typeof options === 'function') filter = await RedisBloomFilter.import(client, name, options());
      else {
        filter = await RedisBloomFilter.create(client, name, options);
        await filter.add('present');
      }
      const meta = `bloomkit:{${name}}:meta`;
      const original = (await client.hgetall(meta)) as Record<string, string>;
      // `state` other than ready makes open wait 10 s for a creator; the ring's later slices are checked as slice 0.
      const fields = Object.keys(original).filter((f) => f !== 'state' && !/^(keys|start):[1-9]/.test(f));
      const disagreements: string[] = [];
      let refusedByBoth = 0;
      for (const field of fields) {
        for (const text of POOL) {
          await client.hset(meta, field, text);
          const node = await throughNode(name, blocked);
          const functions = await throughFunctions(name, blocked);
          await client.hset(meta, field, original[field]!);
          if ((node === 'ok') === (functions === 'ok')) {
            if (node !== 'ok') refusedByBoth++;
            continue;
          }
          if (typeof options !== 'function' && options.kind === 'window' && field === 'fpr') continue; // the one difference by design (above)
          disagreements.push(`${field}=${JSON.stringify(text)}: Node ${node}; functions ${functions}`);
        }
      }
      expect(disagreements).toEqual([]);
      // The pool reaches the validators: most texts of most fields are refused.
      expect(refusedByBoth).toBeGreaterThan(fields.length * 10);
      expect(await throughNode(name, blocked)).toBe('ok');
      await filter.drop();
    });
  }
});
