import { FormatError, InvalidArgumentError } from '@bloomkit/core';
import { hashInto } from '@bloomkit/core/kit';
import { CapacityError, CuckooFilter, cuckooFromTable, cuckooShape } from '@bloomkit/cuckoo';
import { urlKeys } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, firstBucket, otherBucket } from '../../cuckoo/src/cuckoo-hash.js';
import { runScript, script } from '../src/client.js';
import { SCRIPT_KEYS } from '../src/cuckoo-store.js';
import { RedisBloomFilter } from '../src/index.js';
import { filterKeys } from '../src/keys.js';
import { CUCKOO_ADD } from '../src/lua/cuckoo-add.js';
import { refusal } from './clients/support.js';

// A cuckoo filter in Redis through both doors: the Node client's scripts and the function library share one copy of
// the rules (lua/cuckoo.lua), so each is checked against the local CuckooFilter byte for byte, and against the other.

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
  await RedisBloomFilter.installFunctions(client);
});
afterAll(async () => stop?.());

const READ_ONLY = /^bk_(m?exists|count|card|info)$/;

/** FCALL verb 1 name ...args (FCALL_RO for the read-only verbs). */
function fcall(verb: string, name: string, ...args: (string | number)[]): Promise<unknown> {
  return client.call(READ_ONLY.test(verb) ? 'FCALL_RO' : 'FCALL', verb, '1', name, ...args);
}

/** The functions' 0/1 answers as booleans. */
async function fcallAnswers(verb: string, name: string, keys: readonly string[]): Promise<boolean[]> {
  return ((await fcall(verb, name, ...keys)) as number[]).map((answer) => answer === 1);
}

describe('a cuckoo filter in Redis', () => {
  it('one filter, two doors: Node and the functions add, count and delete as the local filter, byte for byte', async () => {
    const node = await RedisBloomFilter.create(client, 'two-doors', {
      kind: 'cuckoo',
      capacity: 3_000,
      fpr: 0.01,
      seed: 9,
    });
    const local = CuckooFilter.create(3_000, 0.01, { seed: 9 });
    // Filled to 95% of the capacity (86% of the slots): the last batches walk.
    const keys = urlKeys(2_850, 'doors');
    for (let at = 0, turn = 0; at < keys.length; at += 150, turn++) {
      // A repeat in the batch, and keys[0] once more in the first batches (a key has room for 2b = 8 copies).
      const batch = [...keys.slice(at, at + 150), keys[at]!, ...(turn < 3 ? [keys[0]!] : [])];
      const expected = batch.map((key) => local.add(key));
      const answers =
        turn % 2 === 0 ? await node.addMany(batch) : await fcallAnswers('bk_madd', 'two-doors', batch);
      expect(answers).toEqual(expected);
    }
    expect(await node.export()).toEqual(local.serialize());
    expect(await node.count()).toBe(local.size);
    expect(await fcall('bk_card', 'two-doors')).toBe(local.size);

    const probes = [...keys.slice(0, 500), ...urlKeys(500, 'absent')];
    expect(await node.hasMany(probes)).toEqual(probes.map((key) => local.has(key)));
    expect(await fcallAnswers('bk_mexists', 'two-doors', probes)).toEqual(
      probes.map((key) => local.has(key)),
    );
    expect(await node.countMany(probes)).toEqual(probes.map((key) => local.countOf(key)));
    expect(await node.countOf(keys[0]!)).toBe(local.countOf(keys[0]!));
    expect(await fcall('bk_count', 'two-doors', keys[0]!)).toBe(local.countOf(keys[0]!));

    // Deletes of keys added (one of them twice over its copies) and of keys never added, through each door.
    const gone = [...keys.slice(0, 120), keys[0]!, keys[0]!, keys[0]!, ...urlKeys(60, 'never')];
    const half = gone.length / 2;
    expect(await node.deleteMany(gone.slice(0, half))).toEqual(
      gone.slice(0, half).map((key) => local.delete(key)),
    );
    expect(await fcallAnswers('bk_mdel', 'two-doors', gone.slice(half))).toEqual(
      gone.slice(half).map((key) => local.delete(key)),
    );
    expect(await node.delete(keys[200]!)).toBe(local.delete(keys[200]!));
    expect(await fcall('bk_del', 'two-doors', keys[201]!)).toBe(local.delete(keys[201]!) ? 1 : 0);
    expect(await node.export()).toEqual(local.serialize());
    expect(await node.count()).toBe(local.size);
    // A delete of a key never added may take a colliding key's copy (documented): Redis answers as the local filter.
    const kept = keys.slice(202);
    expect(await node.hasMany(kept)).toEqual(kept.map((key) => local.has(key)));
  });

  it('a full table refuses the add that finds no room, changing no byte, through both doors', async () => {
    const node = await RedisBloomFilter.create(client, 'full', {
      kind: 'cuckoo',
      capacity: 200,
      fpr: 0.01,
      seed: 3,
    });
    const local = CuckooFilter.create(200, 0.01, { seed: 3 });
    const keys = urlKeys(400, 'fill');
    const acknowledged: string[] = [];
    let refused: string | undefined;
    for (const key of keys) {
      let fits = true;
      try {
        local.add(key);
      } catch (error) {
        expect(error).toBeInstanceOf(CapacityError);
        fits = false;
      }
      if (!fits) {
        refused = key;
        break;
      }
      await node.add(key);
      acknowledged.push(key);
    }
    expect(refused).toBeDefined();
    expect(acknowledged.length).toBeGreaterThanOrEqual(0.95 * 56 * 4);
    const before = await node.export();
    expect(before).toEqual(local.serialize());
    await expect(node.add(refused!)).rejects.toThrow(CapacityError);
    expect(await refusal(fcall('bk_add', 'full', refused!))).toMatch(
      /is full: no room .* nothing was written/,
    );
    // A batch that meets the refused key is refused whole: the keys before it in the batch are not in either.
    const fresh = urlKeys(3, 'late');
    await expect(node.addMany([...fresh, refused!])).rejects.toThrow(/nothing was written/);
    expect(await refusal(fcall('bk_madd', 'full', ...fresh, refused!))).toMatch(/nothing was written/);
    expect(await node.export()).toEqual(before);
    expect(await fcall('bk_card', 'full')).toBe(acknowledged.length);
    expect(await node.hasMany(acknowledged)).toEqual(acknowledged.map(() => true));
  });

  it('a batch past one call goes as calls of SCRIPT_KEYS keys, each whole or nothing; the refusal says what went in', async () => {
    const node = await RedisBloomFilter.create(client, 'calls', {
      kind: 'cuckoo',
      capacity: 1_500,
      fpr: 0.01,
    });
    const slots = node.params.table!.buckets * node.params.table!.bucketSize;
    const keys = urlKeys(slots + 100, 'calls');
    const local = CuckooFilter.create(1_500, 0.01);
    local.addAll(keys.slice(0, SCRIPT_KEYS));
    await expect(node.addMany(keys)).rejects.toThrow(
      /the first 1000 keys of the batch were added by the calls before/,
    );
    expect(await node.export()).toEqual(local.serialize());
    expect(await node.count()).toBe(SCRIPT_KEYS);
    const probes = urlKeys(2_500, 'calls-probe');
    expect(await node.hasMany(probes)).toEqual(probes.map((key) => local.has(key)));
    expect(await node.countMany(probes)).toEqual(probes.map((key) => local.countOf(key)));
  });

  it('a call whose walks need more kicks than it may make is refused whole', async () => {
    const node = await RedisBloomFilter.create(client, 'kicks', { kind: 'cuckoo', capacity: 500, fpr: 0.01 });
    await node.addMany(urlKeys(520, 'kicks-fill'));
    const generation = Number(await client.hget(filterKeys('kicks', 1).meta, 'generation'));
    const { meta, data } = filterKeys('kicks', generation);
    const table = node.params.table!;
    const add = script(CUCKOO_ADD);
    /** The Node door's add script on one key, with `allowance` kicks for the call. */
    const addWith = (key: string, allowance: number) => {
      const hash = new Int32Array(4);
      hashInto(key, 0, hash, 'test');
      const packed = Buffer.alloc(12);
      for (let i = 0; i < 3; i++) packed.writeInt32LE(hash[i]!, 4 * i);
      const { fingerprintBits, bucketSize, buckets, maxKicks } = table;
      const args = [generation, fingerprintBits, bucketSize, buckets, maxKicks, allowance, packed, 'kicks'];
      return runScript(client, add, [meta, data], args);
    };
    const before = await node.export();
    let walked: string | undefined;
    for (const key of urlKeys(200, 'kicks-late')) {
      const message = await addWith(key, 0).then(
        () => undefined,
        (error: Error) => error.message,
      );
      if (message === undefined) continue;
      expect(message).toMatch(
        /^BLOOMKIT_FULL the walks of this call need more than the 0 kicks .* nothing was written/,
      );
      walked = key;
      break;
    }
    expect(walked).toBeDefined();
    // What was added before the walk's key went in (it needed no kick); the refused call wrote nothing.
    const local = CuckooFilter.deserialize(before);
    const untilWalk = urlKeys(200, 'kicks-late');
    for (const key of untilWalk.slice(0, untilWalk.indexOf(walked!))) local.add(key);
    expect(await node.export()).toEqual(local.serialize());
    // With the store's allowance the key goes in, as in the local filter.
    expect(await node.add(walked!)).toBe(local.add(walked!));
    expect(await node.export()).toEqual(local.serialize());
  });

  it('the functions price a call before they run it: one past the budget writes nothing', async () => {
    await RedisBloomFilter.create(client, 'priced', { kind: 'cuckoo', capacity: 10_000, fpr: 0.01 });
    const many = urlKeys(3_000, 'priced');
    expect(await refusal(fcall('bk_madd', 'priced', ...many))).toMatch(
      /bk_madd: this call would cost \d+ units, more than the 50000 .* nothing was written: send at most \d+ such items/,
    );
    expect(await fcall('bk_card', 'priced')).toBe(0);
    const fit = Number(/send at most (\d+)/.exec(await refusal(fcall('bk_madd', 'priced', ...many)))![1]);
    expect(((await fcall('bk_madd', 'priced', ...many.slice(0, fit))) as number[]).length).toBe(fit);
  });

  it('bk_reserve sizes the table as CuckooFilter.create, and the verbs refuse what does not apply', async () => {
    for (const [capacity, fpr, bucketSize] of [
      [1_000, 0.01, 4],
      [300_007, 0.001, 4],
      [5_000, 0.03, 2],
      [77_777, 0.0001, 8],
    ] as const) {
      const name = `sized-${capacity}-${bucketSize}`;
      expect(await fcall('bk_reserve', name, 'cuckoo', capacity, fpr, 'BUCKETSIZE', bucketSize)).toBe('OK');
      const shape = cuckooShape(capacity, fpr, bucketSize);
      const fields = await client.hgetall(`bloomkit:{${name}}:meta`);
      expect(fields.table).toBe(`${shape.fingerprintBits}:${bucketSize}:${shape.buckets}:1000`);
      expect(Number(fields.bits)).toBe(shape.buckets * bucketSize * shape.fingerprintBits);
      const node = await RedisBloomFilter.open(client, name);
      expect(await node.export()).toEqual(CuckooFilter.create(capacity, fpr, { bucketSize }).serialize());
      // Created again with the same parameters: opened; with another bucket size: refused, naming it.
      expect(await fcall('bk_reserve', name, 'cuckoo', capacity, fpr, 'BUCKETSIZE', bucketSize)).toBe('OK');
      expect(
        await refusal(
          fcall('bk_reserve', name, 'cuckoo', capacity, fpr, 'BUCKETSIZE', bucketSize === 4 ? 2 : 4),
        ),
      ).toMatch(/exists with other parameters \(bucketSize/);
    }
    expect(await refusal(fcall('bk_reserve', 'bad-1', 'cuckoo', 1000, 1e-9))).toMatch(/FPR must be at least/);
    expect(await refusal(fcall('bk_reserve', 'bad-2', 'cuckoo', 1000, 0.01, 'BUCKETSIZE', 3))).toMatch(
      /BUCKETSIZE must be one of 2, 4, 8/,
    );
    expect(await refusal(fcall('bk_reserve', 'bad-3', 'standard', 1000, 0.01, 'BUCKETSIZE', 4))).toMatch(
      /BUCKETSIZE applies to a cuckoo filter/,
    );
    await RedisBloomFilter.create(client, 'plain', { kind: 'standard', capacity: 100, fpr: 0.01 });
    expect(await refusal(fcall('bk_count', 'plain', 'x'))).toMatch(/counts the copies in a cuckoo filter/);
    const plain = await RedisBloomFilter.open(client, 'plain');
    await expect(plain.countOf('x')).rejects.toThrow(/only cuckoo filters count copies/);
    await expect(
      RedisBloomFilter.create(client, 'bad-4', { kind: 'standard', capacity: 100, fpr: 0.01, bucketSize: 4 }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      RedisBloomFilter.create(client, 'bad-5', { kind: 'cuckoo', bits: 1000, hashes: 2 }),
    ).rejects.toThrow(/sized by capacity and fpr/);
  });

  it('a crafted table field is refused by both doors, naming it', async () => {
    await RedisBloomFilter.create(client, 'crafted', { kind: 'cuckoo', capacity: 1_000, fpr: 0.01 });
    const meta = 'bloomkit:{crafted}:meta';
    const good = (await client.hget(meta, 'table'))!;
    for (const table of [
      '99:4:278:1000',
      '10:3:278:1000',
      '10:4:0:1000',
      '10:4:278:0',
      '10:4:279:1000',
      'x',
      '',
    ]) {
      await client.hset(meta, 'table', table);
      await expect(RedisBloomFilter.open(client, 'crafted')).rejects.toThrow(FormatError);
      expect(await refusal(fcall('bk_exists', 'crafted', 'x'))).toMatch(/meta field (table|bits) of/);
    }
    await client.hset(meta, 'table', good);
    expect(await fcall('bk_exists', 'crafted', 'x')).toBe(0);
  });

  it('an imported file keeps its table: the functions add on, and export is the local filter', async () => {
    const local = CuckooFilter.create(2_000, 0.001, { seed: 77, bucketSize: 2 });
    local.addAll(urlKeys(900, 'imported'));
    const node = await RedisBloomFilter.import(client, 'imported', local.serialize());
    const more = urlKeys(300, 'imported-more');
    expect(await fcallAnswers('bk_madd', 'imported', more)).toEqual(more.map((key) => local.add(key)));
    expect(await node.export()).toEqual(local.serialize());
    expect((await fcall('bk_info', 'imported')) as unknown[]).toEqual(
      expect.arrayContaining(['Kind', 'cuckoo', 'Bucket size', 2, 'Number of buckets', local.buckets]),
    );
  });

  it("a file with the format's longest walks (65,535 kicks) costs a call what a created filter costs, both doors", async () => {
    const base = CuckooFilter.create(300, 0.01, { seed: 5, bucketSize: 2 });
    const { fingerprintBits, bucketSize, buckets } = base;
    const crafted = cuckooFromTable(
      { fingerprintBits, bucketSize, buckets, maxKicks: 65_535, capacity: 300, fpr: 0.01, seed: 5 },
      base.payloadParts()[0]!,
    );
    expect(crafted.maxKicks).toBe(65_535);
    const node = await RedisBloomFilter.import(client, 'long-walks', crafted.serialize());
    // Priced at one whole walk of 65,535 kicks, every bk_add was refused ("send at most 0 such items per call").
    expect(await fcall('bk_add', 'long-walks', 'first')).toBe(1);
    // Filled past its room, a call is refused at the walks one call may make: 4 walks of at most 1,000 kicks and 8
    // a key (it was 4 of 65,535: a call held Redis over a second), with nothing of it written.
    let refusal = '';
    for (let round = 0; round < 40 && refusal === ''; round++) {
      await node.addMany(urlKeys(50, `long-walks-${round}`)).catch((error: unknown) => {
        expect(error).toBeInstanceOf(CapacityError);
        refusal = (error as Error).message;
      });
    }
    expect(refusal).toMatch(
      /need more than the 4400 kicks it may make|is full: no room for an item after 65535 kicks/,
    );
    expect(refusal).toMatch(/nothing was written/);
  });

  it("bk_positions gives a key's fingerprint and its two buckets, as the local filter computes them", async () => {
    const local = CuckooFilter.create(3_000, 0.01, { seed: 12 });
    const node = await RedisBloomFilter.import(client, 'cuckoo-positions', local.serialize());
    const hash = new Int32Array(4);
    const modulus = 2 ** local.fingerprintBits - 1;
    for (const key of urlKeys(30, 'cuckoo-positions')) {
      hashInto(key, 12, hash, 'test');
      const fp = fingerprintOf(hash[1]!, modulus);
      const i1 = firstBucket(hash[0]!, local.buckets);
      expect(await fcall('bk_positions', 'cuckoo-positions', key)).toEqual([
        fp,
        i1,
        otherBucket(i1, fp, local.buckets),
      ]);
    }
    await node.drop();
  });

  it('racing clients: of many adding one new key at once, exactly one hears it was new', async () => {
    const node = await RedisBloomFilter.create(client, 'racing', {
      kind: 'cuckoo',
      capacity: 5_000,
      fpr: 0.01,
    });
    const keys = urlKeys(400, 'racing');
    const clients = [client, client.duplicate(), client.duplicate(), client.duplicate()];
    const handles = await Promise.all(clients.map((c) => RedisBloomFilter.open(c, 'racing')));
    const answers = await Promise.all(
      handles.map((handle, i) =>
        i % 2 === 0 ? handle.addMany(keys) : Promise.all(keys.map((key) => handle.add(key))),
      ),
    );
    for (let j = 0; j < keys.length; j++) expect(answers.filter((one) => one[j]).length).toBe(1);
    expect(await node.count()).toBe(4 * keys.length);
    expect(await node.countMany(keys)).toEqual(keys.map(() => 4));
    for (const c of clients.slice(1)) c.disconnect();
  });
});
