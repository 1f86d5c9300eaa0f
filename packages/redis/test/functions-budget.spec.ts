import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBloomFilter } from '../src/index.js';
import { refusal } from './clients/support.js';

// What one function call may do (functions/bloomkit.lua, "The budget of one call"): a call is priced before it reads
// past the meta hash or writes anything, and one over the budget is refused whole. Also the halves of a filter that
// can go missing (a window's ring, a chain's sub-filter), and calls that used to write and then fail.

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
  await RedisBloomFilter.installFunctions(client);
});
afterAll(async () => {
  await stop?.();
});

function fcall(verb: string, name: string, ...args: (string | number | Buffer)[]): Promise<unknown> {
  return client.call('FCALL', verb, '1', name, ...args);
}

/** Every key of the filter `name` with its bytes (hashes as their fields), to show that a call wrote nothing. */
async function snapshot(name: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of (await client.keys(`bloomkit:{${name}}:*`)).sort()) {
    const type = await client.type(key);
    if (type === 'hash') out[key] = await client.hgetall(key);
    else if (type === 'set') out[key] = (await client.smembers(key)).sort();
    else out[key] = await client.getBuffer(key);
  }
  return out;
}

/** The number of items the refusal says fit in one call. */
function fitOf(message: string): number {
  const match = /send at most (\d+) such items per call/.exec(message);
  if (match === null) throw new Error(`no fit in ${message}`);
  return Number(match[1]);
}

describe('the budget of one call', () => {
  it('a batch over the budget is refused whole, naming its price and how many fit; that many are accepted', async () => {
    // k = 64 (the largest): 1,000 items of 40 bytes held the server 70 ms before the budget, 100,000 over a minute.
    expect(await fcall('bk_reserve', 'budget-k64', 'standard', '100000', '1e-19')).toBe('OK');
    await fcall('bk_madd', 'budget-k64', ...urlKeys(10, 'first'));
    const before = await snapshot('budget-k64');
    const keys = urlKeys(5_000, 'over');
    for (const verb of ['bk_madd', 'bk_mexists', 'bk_insert']) {
      const args = verb === 'bk_insert' ? ['NOCREATE', 'ITEMS', ...keys] : keys;
      const message = await refusal(fcall(verb, 'budget-k64', ...args));
      expect(message).toMatch(
        new RegExp(`^ERR bloomkit: ${verb}: this call would cost \\d+ units, more than the 50000`),
      );
      expect(message).toMatch(/6\d positions each\); nothing was written/);
      expect(await snapshot('budget-k64')).toEqual(before);
    }
    const fit = fitOf(await refusal(fcall('bk_madd', 'budget-k64', ...keys)));
    expect(fit).toBeGreaterThan(500);
    expect(fit).toBeLessThan(1_000);
    const answers = (await fcall('bk_madd', 'budget-k64', ...keys.slice(0, fit))) as number[];
    expect(answers).toEqual(new Array(fit).fill(1));
    // The fit is a floor (the batch's average item): twice as many are over the budget.
    expect(await refusal(fcall('bk_madd', 'budget-k64', ...keys.slice(fit, 3 * fit)))).toMatch(/would cost/);
    expect(await fcall('bk_card', 'budget-k64')).toBe(10 + fit);
  });

  it('the bytes of the items count: one item of 1 MB is refused by every verb that hashes it', async () => {
    expect(await fcall('bk_reserve', 'budget-bytes', 'counting', '1000', '0.01')).toBe('OK');
    const big = Buffer.alloc(1 << 20, 0x61);
    const before = await snapshot('budget-bytes');
    for (const verb of ['bk_add', 'bk_madd', 'bk_exists', 'bk_del', 'bk_positions']) {
      expect(await refusal(fcall(verb, 'budget-bytes', big)), verb).toMatch(
        /would cost \d+ units.*nothing was written/,
      );
    }
    expect(await refusal(client.call('FCALL_RO', 'bk_hash', '0', big))).toMatch(
      /bk_hash: this call would cost/,
    );
    expect(await snapshot('budget-bytes')).toEqual(before);
    // Below the budget, a long item is still an item.
    const long = Buffer.alloc(200_000, 0x62);
    expect(await fcall('bk_add', 'budget-bytes', long)).toBe(1);
    expect(await fcall('bk_exists', 'budget-bytes', long)).toBe(1);
  });

  it('bk_reserve refuses a filter whose allocation is over the budget and creates nothing', async () => {
    // 10^8 keys at 1%: 958 million bits, 114 MiB (zeroing it held the server about 80 ms; 512 MB, 400 ms).
    const message = await refusal(fcall('bk_reserve', 'budget-huge', 'standard', '100000000', '0.01'));
    expect(message).toMatch(
      /bk_reserve: a filter of \d+ bits would allocate or clear \d+ bytes, more than one call may/,
    );
    expect(await client.keys('bloomkit:{budget-huge}:*')).toEqual([]);
    expect(await refusal(fcall('bk_insert', 'budget-huge', 'CAPACITY', '100000000', 'ITEMS', 'a'))).toMatch(
      /would (cost|allocate)/,
    );
    expect(await client.keys('bloomkit:{budget-huge}:*')).toEqual([]);
    // Within it: 10^7 keys at 1%, 11 MiB.
    expect(await fcall('bk_reserve', 'budget-large', 'standard', '10000000', '0.01')).toBe('OK');
    expect(await fcall('bk_add', 'budget-large', 'a')).toBe(1);
  });

  it('a scalable filter prices every sub-filter an item may probe, and the growth its items may cause', async () => {
    expect(await fcall('bk_reserve', 'budget-chain', 'scalable', '10', '0.01', 'GROWTH', '1.125')).toBe('OK');
    // Grow the chain a call at a time, then find that the same batch costs more as the chain gets longer.
    const first = fitOf(await refusal(fcall('bk_mexists', 'budget-chain', ...urlKeys(20_000, 'probe'))));
    for (let i = 0; i < 40; i++) await fcall('bk_madd', 'budget-chain', ...urlKeys(20, `grow-${i}`));
    const later = fitOf(await refusal(fcall('bk_mexists', 'budget-chain', ...urlKeys(20_000, 'probe'))));
    expect(later).toBeLessThan(first);
    const accepted = (await fcall('bk_mexists', 'budget-chain', ...urlKeys(later, 'probe'))) as number[];
    expect(accepted).toHaveLength(later);
  });
});

describe('no call writes and then fails', () => {
  it('a scalable chain that ends inside bk_madd answers each item: the added ones, then an error in each place', async () => {
    expect(await fcall('bk_reserve', 'chain-end', 'scalable', '20', '0.01')).toBe('OK');
    // The chain may hold two sub-filters (its shapes cut to two entries): 20 + 30 items.
    const meta = 'bloomkit:{chain-end}:meta';
    const shapes = ((await client.hget(meta, 'shapes')) ?? '').split(' ');
    await client.hset(meta, 'shapes', shapes.slice(0, 2).join(' '));
    const keys = urlKeys(80, 'end');
    const replies = (await fcall('bk_madd', 'chain-end', ...keys)) as unknown[];
    expect(replies).toHaveLength(80);
    const added = replies.filter((reply) => reply === 1).length;
    const refused = replies.filter((reply) => reply instanceof Error);
    expect(added).toBeGreaterThanOrEqual(50);
    expect(added + refused.length + replies.filter((reply) => reply === 0).length).toBe(80);
    expect(refused.length).toBeGreaterThan(0);
    expect((refused[0] as Error).message).toMatch(/cannot grow past sub-filter 1.*this item was not added/);
    // The count is the items answered 1, and every one of them is present.
    expect(await fcall('bk_card', 'chain-end')).toBe(added);
    const present = (await client.call('FCALL_RO', 'bk_mexists', '1', 'chain-end', ...keys)) as number[];
    replies.forEach((reply, i) => {
      if (reply === 1) expect(present[i], keys[i]).toBe(1);
    });
    // bk_add of a new item on the full chain: the error alone.
    expect(await refusal(fcall('bk_add', 'chain-end', 'one-more-new-item'))).toMatch(/cannot grow past/);
  });

  it('bk_madd over an exception list that is not a set is refused before any bit is set', async () => {
    expect(await fcall('bk_reserve', 'exc-type', 'standard', '1000', '0.01', 'EXCEPTIONS')).toBe('OK');
    await fcall('bk_madd', 'exc-type', 'a', 'b');
    const info = (await client.call('FCALL_RO', 'bk_info', '1', 'exc-type')) as unknown[];
    const generation = Number(info[info.indexOf('Generation') + 1]);
    const setKey = `bloomkit:{exc-type}:exceptions:${generation.toString(16).padStart(8, '0')}`;
    await client.set(setKey, 'planted');
    const before = await snapshot('exc-type');
    for (const verb of ['bk_madd', 'bk_except', 'bk_unexcept']) {
      expect(await refusal(fcall(verb, 'exc-type', 'c', 'd')), verb).toMatch(
        /is not a set \(WRONGTYPE.*nothing was written/,
      );
    }
    expect(await snapshot('exc-type')).toEqual(before);
    expect(await fcall('bk_card', 'exc-type')).toBe(2);
  });

  it('bk_mdel with a count field that is not a number is refused before any counter goes down', async () => {
    expect(await fcall('bk_reserve', 'del-count', 'counting', '1000', '0.01')).toBe('OK');
    await fcall('bk_madd', 'del-count', 'a', 'b', 'c');
    await client.hset('bloomkit:{del-count}:meta', 'count', 'many');
    const before = await snapshot('del-count');
    expect(await refusal(fcall('bk_mdel', 'del-count', 'a', 'b'))).toMatch(/meta field count/);
    expect(await refusal(fcall('bk_del', 'del-count', 'a'))).toMatch(/meta field count/);
    expect(await snapshot('del-count')).toEqual(before);
  });
});

describe('half a filter gone is the filter gone', () => {
  it('a window whose ring is gone is "no filter": never recreated empty, nothing written', async () => {
    const node = await RedisBloomFilter.create(client, 'win-gone', {
      kind: 'window',
      capacity: 300,
      fpr: 0.01,
    });
    const keys = urlKeys(300, 'win-gone');
    expect(((await fcall('bk_madd', 'win-gone', ...keys)) as number[]).filter((a) => a === 1).length).toBe(
      300,
    );
    const ring = (await node.info()).keys.find((key) => key.includes(':data:'))!;
    await client.del(ring);
    for (const verb of ['bk_madd', 'bk_mexists', 'bk_add']) {
      expect(await refusal(fcall(verb, 'win-gone', keys[0]!)), verb).toMatch(/no filter win-gone/);
    }
    expect(await client.exists(ring)).toBe(0);
    // A ring that is not its size (a crafted sliceBits over a small string) is gone too, and nothing is allocated.
    await client.setrange(ring, 10, 'x');
    const meta = 'bloomkit:{win-gone}:meta';
    const fields = await client.hgetall(meta);
    const h = Number(fields.hashes) + Number(fields.ageSlices);
    await client.hset(meta, 'sliceBits', String(2 ** 24), 'bits', String(h * 2 ** 24));
    expect(await refusal(fcall('bk_add', 'win-gone', 'x'))).toMatch(/no filter win-gone/);
    expect(await client.strlen(ring)).toBe(11);
  });

  it('a scalable filter whose sub-filter is gone is "no filter", never a restart that forgets', async () => {
    expect(await fcall('bk_reserve', 'chain-gone', 'scalable', '10', '0.01')).toBe('OK');
    const keys = urlKeys(60, 'chain-gone');
    await fcall('bk_madd', 'chain-gone', ...keys);
    const subs = (await client.keys('bloomkit:{chain-gone}:sub:*')).sort();
    expect(subs.length).toBeGreaterThan(2);
    await client.del(subs[0]!);
    for (const verb of ['bk_madd', 'bk_mexists', 'bk_add', 'bk_exists']) {
      expect(await refusal(fcall(verb, 'chain-gone', keys[0]!)), verb).toMatch(/no filter chain-gone/);
    }
    expect(await client.exists(subs[0]!)).toBe(0);
  });
});

describe('arguments the verbs used to misread', () => {
  it('a second key argument is an error reply, not ignored; bk_hash and bk_version take none', async () => {
    expect(await fcall('bk_reserve', 'two-keys', 'standard', '100', '0.01')).toBe('OK');
    expect(await refusal(client.call('FCALL', 'bk_add', '2', 'two-keys', 'other', 'x'))).toMatch(
      /bk_add takes 1 key argument \(the filter's name\), got 2/,
    );
    expect(await refusal(client.call('FCALL_RO', 'bk_hash', '1', 'two-keys', 'x'))).toMatch(
      /bk_hash takes 0 key/,
    );
    expect(await client.call('FCALL_RO', 'bk_version', '0')).toBeGreaterThan(0);
    expect(await fcall('bk_card', 'two-keys')).toBe(0);
  });

  it('an option without its value names the option', async () => {
    for (const option of ['SEED', 'COUNTERBITS', 'GROWTH', 'TIGHTENING']) {
      expect(await refusal(fcall('bk_reserve', 'no-value', 'standard', '100', '0.01', option))).toMatch(
        new RegExp(`bk_reserve: ${option} needs a value`),
      );
    }
    expect(await client.keys('bloomkit:{no-value}:*')).toEqual([]);
  });

  it('a meta whose bits leave no room for the guard below bit 2^32 is an error naming the field', async () => {
    expect(await fcall('bk_reserve', 'big-bits', 'standard', '100', '0.01')).toBe('OK');
    const meta = 'bloomkit:{big-bits}:meta';
    await client.hset(meta, 'bits', String(2 ** 32), 'hashes', '1');
    expect(await refusal(fcall('bk_add', 'big-bits', 'x'))).toMatch(
      /meta field bits of .* must be an integer in \[1, 4294967264\]/,
    );
  });
});
