import { BloomError, FormatError } from '@bloomkit/core';
import { announceFuzz, FUZZ, TENTH_RUNS } from '@bloomkit/testkit';
import { startSingle } from '@bloomkit/testkit/redis';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeParams } from '../src/decode-params.js';
import {
  MAX_STRING_BITS,
  RedisBloomFilter,
  type RedisFilterOptions,
  type RedisFilterParams,
} from '../src/index.js';
import { decodeGeneration } from '../src/params.js';

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
});
afterAll(async () => stop?.());

const KINDS: Record<string, RedisFilterOptions> = {
  standard: { kind: 'standard', capacity: 1_000, fpr: 0.01 },
  partitioned: { kind: 'partitioned', capacity: 1_000, fpr: 0.01 },
  counting: { kind: 'counting', capacity: 1_000, fpr: 0.01 },
  blocked: { kind: 'blocked', capacity: 100_000, fpr: 0.01, shards: 3 },
  scalable: { kind: 'scalable', capacity: 100, fpr: 0.01 },
  cuckoo: { kind: 'cuckoo', capacity: 1_000, fpr: 0.01 },
};

/** Hostile values for every field, and some that contradict the others. */
const CRAFTED: Record<string, string[]> = {
  seed: ['-1', '4294967296', '1.5', 'abc', ''],
  bits: ['0', '-8', '1e9999', 'NaN', '18446744073709551616', '4294967297', '1000001'],
  hashes: ['0', '65', '-1', '7.5', 'x'],
  counterBits: ['3', '16', '-4'],
  capacity: ['0', '-1', 'Infinity'],
  fpr: ['0', '1', '-0.1', 'NaN'],
  shards: ['1000000000', '0', '-1', '2'],
  shardBlocks: ['0', '1000000000', '-5'],
  growth: ['1.1', '0', '4.5', '1000', 'NaN', ''],
  tightening: ['1', '0', '2', '-1'],
  generation: ['0', '-1', '4294967296', ''],
  kind: ['ribbon', ''],
  format: ['bloomkit/2'],
};

describe('crafted meta hashes are refused like corrupt file headers', () => {
  for (const [kind, options] of Object.entries(KINDS)) {
    it(`${kind}: every hostile or inconsistent field is a FormatError at open, before anything is allocated`, async () => {
      const name = `crafted-${kind}`;
      const filter = await RedisBloomFilter.create(client, name, options);
      const meta = `bloomkit:{${name}}:meta`;
      const original = await client.hgetall(meta);
      let refused = 0;
      for (const [field, values] of Object.entries(CRAFTED)) {
        for (const value of values) {
          if (original[field] === value) continue;
          // Any m is a valid standard or counting shape (their unit is one bit); partitioned needs a multiple of k.
          if (field === 'bits' && value === '1000001' && (kind === 'standard' || kind === 'counting'))
            continue;
          await client.hset(meta, field, value);
          const opened = RedisBloomFilter.open(client, name).then(
            () => undefined,
            (error: unknown) => error,
          );
          const error = await opened;
          // A value can be harmless only where the kind ignores the field (a count, say); none here is.
          expect([field, value, error]).toEqual([field, value, expect.any(FormatError)]);
          refused++;
          await client.hset(meta, field, original[field]!);
        }
      }
      expect(refused).toBeGreaterThan(30);
      await filter.drop();
    });
  }

  it('scalable: a crafted chain length (huge, negative, zero, not a number) fails every operation with a FormatError', async () => {
    const name = 'crafted-chain';
    const filter = await RedisBloomFilter.create(client, name, KINDS.scalable!);
    await filter.addMany(['a', 'b', 'c']);
    const meta = `bloomkit:{${name}}:meta`;
    for (const value of ['1000000000', '-1', '0', 'x', '513', '54', '2.5']) {
      await client.hset(meta, 'filters', value);
      await expect(filter.add('key')).rejects.toThrow(FormatError);
      await expect(filter.hasMany(['a', 'key'])).rejects.toThrow(FormatError);
      await expect(filter.export()).rejects.toThrow(FormatError);
      await expect(filter.info()).rejects.toThrow(FormatError);
    }
    await client.hset(meta, 'filters', '1');
    expect(await filter.has('a')).toBe(true);
    await filter.drop();
  });
});

describe('meta hash fuzz of the validator, at full depth', () => {
  announceFuzz('Redis meta validation (per kind)');
  const hostile = fc.oneof(
    fc.integer().map(String),
    fc.nat(2 ** 53).map(String),
    fc.constantFrom(
      '-1',
      '0',
      '1',
      '2',
      '4',
      '8',
      '53',
      '64',
      '65',
      '512',
      '1e3',
      ' 5',
      '4294967296',
      'NaN',
      '',
    ),
    fc.string({ maxLength: 12 }),
  );
  for (const [kind, options] of Object.entries(KINDS)) {
    it(`${kind}: what passes is within every limit and consistent; the rest is a FormatError`, async () => {
      const name = `validator-${kind}`;
      const filter = await RedisBloomFilter.create(client, name, options);
      const original = await client.hgetall(`bloomkit:{${name}}:meta`);
      await filter.drop();
      const fields = Object.keys(original);
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...fields), hostile), { minLength: 1, maxLength: 4 }),
          (edits) => {
            const crafted = { ...original, ...Object.fromEntries(edits) };
            let params: RedisFilterParams;
            try {
              params = decodeParams('fuzz', name, crafted);
              decodeGeneration('fuzz', name, crafted);
            } catch (error) {
              expect(error).toBeInstanceOf(FormatError);
              return;
            }
            expect(params.hashes).toBeGreaterThanOrEqual(1);
            expect(params.hashes).toBeLessThanOrEqual(64);
            expect(Number.isSafeInteger(params.bits) && params.bits >= 1).toBe(true);
            expect(params.seed >= 0 && params.seed < 2 ** 32).toBe(true);
            if (params.kind === 'blocked') {
              expect(params.shards).toBe(Math.ceil(params.bits / 512 / params.shardBlocks));
              expect(params.shardBlocks * 512).toBeLessThanOrEqual(MAX_STRING_BITS);
            } else {
              expect(params.bits * Math.max(1, params.counterBits)).toBeLessThanOrEqual(MAX_STRING_BITS);
            }
          },
        ),
        { numRuns: FUZZ.runs, seed: FUZZ.seed },
      );
    }, 600_000);
  }
});

describe('meta hash fuzz against a real server', () => {
  announceFuzz(
    'Redis meta hashes against a real server (per kind; each input is several round trips)',
    TENTH_RUNS,
  );
  const hostile = fc.oneof(
    fc.integer().map(String),
    fc.constantFrom(
      '-1',
      '0',
      '1',
      '2',
      '3',
      '4',
      '8',
      '16',
      '53',
      '54',
      '64',
      '65',
      '512',
      '1e3',
      '0x10',
      ' 5',
    ),
    fc.constantFrom('4294967295', '4294967296', '9007199254740993', '1e309', 'NaN', 'Infinity', '0.5', '1.0'),
    fc.string({ maxLength: 12 }),
    fc.nat(2 ** 42).map(String),
  );
  for (const [kind, options] of Object.entries(KINDS)) {
    it(`${kind}: any fields refused with a typed error or the filter works, never anything else`, async () => {
      const name = `fuzz-${kind}`;
      const filter = await RedisBloomFilter.create(client, name, options);
      const meta = `bloomkit:{${name}}:meta`;
      const original = await client.hgetall(meta);
      const fields = Object.keys(original).filter((field) => field !== 'state');
      let opened = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.constantFrom(...fields, 'filters'), hostile), { minLength: 1, maxLength: 3 }),
          async (edits) => {
            await client.hset(meta, ...edits.flat());
            try {
              const handle = await RedisBloomFilter.open(client, name);
              opened++;
              await handle.add('fuzz-key');
              expect(await handle.has('fuzz-key')).toBe(true);
              await handle.export();
            } catch (error) {
              expect(error).toBeInstanceOf(BloomError);
            } finally {
              await client.del(meta);
              await client.hset(meta, original);
            }
          },
        ),
        { numRuns: TENTH_RUNS, seed: FUZZ.seed },
      );
      expect(opened).toBeGreaterThan(0);
      await filter.drop();
    }, 600_000);
  }
});
