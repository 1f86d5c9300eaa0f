import { InvalidArgumentError } from '@bloomkit/core';
import { urlKeys } from '@bloomkit/testkit';
import { type RedisProcess, startCluster, startSingle } from '@bloomkit/testkit/redis';
import { WindowBloomFilter } from '@bloomkit/window';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClockSkewError, RedisBloomFilter } from '../src/index.js';

// A window filter (kind 7) in Redis: bit for bit the local filter fed the same keys, on one node and on a 3-node
// cluster; the shift and the insert atomic under 8 concurrent writers (no key accepted twice, none lost within the
// window); a time window on an injected clock; export and import.

let single: { port: number; client: Redis };
let cluster: { servers: RedisProcess[]; client: Cluster };
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const one = await startSingle();
  single = { port: one.server.port, client: one.client };
  stops.push(one.stop);
  const three = await startCluster(3, { maxmemory: '256mb' });
  cluster = { servers: three.servers, client: three.client };
  stops.push(three.stop);
});
afterAll(async () => {
  for (const stop of stops) await stop();
});

const places = [
  ['one node', () => single.client, () => new Redis({ port: single.port, host: '127.0.0.1' })],
  [
    'a 3-node cluster',
    () => cluster.client,
    () => new Cluster(cluster.servers.map((s) => ({ host: '127.0.0.1', port: s.port }))),
  ],
] as const;

describe('a window filter in Redis', () => {
  for (const [where, client, connect] of places) {
    it(`count window on ${where}: answers, state and exported bytes equal the local filter's across many shifts`, async () => {
      const remote = await RedisBloomFilter.create(client(), 'win-count', {
        kind: 'window',
        capacity: 2_000,
        fpr: 0.01,
        seed: 5,
      });
      const local = WindowBloomFilter.create(2_000, 0.01, { seed: 5 });
      const keys = urlKeys(12_000, 'stream', 2);
      // Batches of uneven sizes, so shifts fall inside batches and between them.
      for (let from = 0, size = 1; from < keys.length; from += size, size = (size * 7) % 1_999) {
        const batch = keys.slice(from, from + size);
        expect(await remote.addMany(batch)).toEqual(batch.map((key) => local.add(key)));
      }
      const probe = [...keys.slice(-3_000), ...urlKeys(3_000, 'absent', 3)];
      expect(await remote.hasMany(probe)).toEqual(local.hasMany(probe));
      expect(await remote.count()).toBe(local.count);
      expect(await remote.export()).toEqual(local.serialize());
      const copy = await RedisBloomFilter.import(client(), 'win-count-copy', local.serialize());
      expect(await copy.export()).toEqual(local.serialize());
      expect((await copy.info()).duration).toBe(0);
      await copy.drop();
      await remote.drop();
    });

    it(`time window on ${where}, with an injected clock: the same generations as the local filter`, async () => {
      let now = 1_700_000_000_000;
      const clock = () => now;
      // A clock of the test's own, trusted whatever the server's says (the default is the server's time).
      const clockTolerance = Number.POSITIVE_INFINITY;
      const options = {
        kind: 'window',
        capacity: 500,
        fpr: 0.01,
        seed: 6,
        duration: 10_000,
        clock,
        clockTolerance,
      } as const;
      const remote = await RedisBloomFilter.create(client(), 'win-time', options);
      const local = WindowBloomFilter.create(500, 0.01, { seed: 6, duration: 10_000, clock });
      const keys = urlKeys(6_000, 'timed', 4);
      for (let i = 0; i < keys.length; i += 50) {
        // A varying pace: quiet spells end generations by the clock, bursts by count.
        now += i % 1_000 < 500 ? 97.3 : 1_777.7;
        const batch = keys.slice(i, i + 50);
        expect(await remote.addMany(batch)).toEqual(batch.map((key) => local.add(key)));
      }
      now += 3_333;
      // has ends no generation in Redis; it answers as if it had.
      expect(await remote.hasMany(keys.slice(-1_000))).toEqual(local.hasMany(keys.slice(-1_000)));
      expect(await remote.add('one more')).toBe(local.add('one more'));
      expect(await remote.export()).toEqual(local.serialize());
      const reopened = await RedisBloomFilter.open(client(), 'win-time', { clock, clockTolerance });
      now += 100_000;
      expect(await reopened.hasMany(keys)).toEqual(local.hasMany(keys));
      await remote.drop();
    });

    it(`time window on ${where}, a clock that steps back 60 s and jumps 2 h: the local filter's generations, none past g`, async () => {
      let now = 1_700_000_000_000;
      const clock = () => now;
      const options = { kind: 'window', capacity: 300, fpr: 0.01, seed: 8, duration: 60_000 } as const;
      const remote = await RedisBloomFilter.create(client(), 'win-steps', {
        ...options,
        clock,
        clockTolerance: Number.POSITIVE_INFINITY,
      });
      const local = WindowBloomFilter.create(300, 0.01, { seed: 8, duration: 60_000, clock });
      const keys = urlKeys(4_000, 'steps', 9);
      for (let i = 0; i < keys.length; i += 40) {
        // Mostly on time; every 10th batch 60 s behind; twice, one reading 2 h ahead.
        const step = i % 400 === 0 ? -60_000 : i % 400 === 40 ? 60_000 : 150;
        now += step;
        if (i === 1_600 || i === 3_200) now += 7_200_000;
        const batch = keys.slice(i, i + 40);
        expect(await remote.addMany(batch)).toEqual(batch.map((key) => local.add(key)));
        const exported = WindowBloomFilter.deserialize(await remote.export(), { clock });
        expect(exported.serialize()).toEqual(local.serialize());
      }
      // The last 300 keys came within the last minute of the filter's time: all present.
      expect((await remote.hasMany(keys.slice(-300))).every(Boolean)).toBe(true);
      await remote.drop();
    });

    it(`8 concurrent writers on ${where}: no key accepted twice, none lost within the window`, async () => {
      const name = 'win-race';
      const window = 2_000;
      await RedisBloomFilter.create(client(), name, {
        kind: 'window',
        capacity: window,
        fpr: 0.001,
        seed: 7,
      });
      const rounds = 60;
      const keys = urlKeys(rounds * 250, 'race', 5);
      const writers: (Redis | Cluster)[] = Array.from({ length: 8 }, () => connect());
      try {
        const handles = await Promise.all(writers.map((c) => RedisBloomFilter.open(c, name)));
        const accepted = new Uint8Array(keys.length);
        for (let round = 0; round < rounds; round++) {
          // Each round every writer adds the same 250 keys at once (each in its own order), so every key races
          // among 8 writers, and generations end while they race (g = 125 changed keys).
          const batch = keys.slice(round * 250, (round + 1) * 250);
          await Promise.all(
            handles.map(async (handle, w) => {
              const order = batch.map((_, i) => (i * (2 * w + 1)) % batch.length);
              const answers = await handle.addMany(order.map((i) => batch[i]!));
              answers.forEach((isNew, j) => {
                if (isNew) accepted[round * 250 + order[j]!]!++;
              });
            }),
          );
          // The round just written is within the window: every key present, for every writer.
          expect((await handles[round % 8]!.hasMany(batch)).every(Boolean)).toBe(true);
        }
        // A key is accepted by exactly one writer, unless it looked present already (a false positive).
        expect(accepted.every((times) => times <= 1)).toBe(true);
        expect(accepted.filter((times) => times === 0).length).toBeLessThan(keys.length * 0.005);
        const remote = handles[0]!;
        expect(await remote.count()).toBe(accepted.reduce((a, b) => a + b, 0));
        const local = WindowBloomFilter.deserialize(await remote.export());
        expect(local.hasMany(keys.slice(-250)).every(Boolean)).toBe(true);
        expect(local.reach().keys).toBeGreaterThanOrEqual(window);
        await remote.drop();
      } finally {
        for (const c of writers) c.disconnect();
      }
    });
  }

  it("follows the server's clock: writers 60 s behind and 2 h ahead are refused, every on-time key kept", async () => {
    const c = single.client;
    const options = { kind: 'window', capacity: 2_000, fpr: 0.01, seed: 3, duration: 3_600_000 } as const;
    const onTime = await RedisBloomFilter.create(c, 'w-skew', options);
    const behind = await RedisBloomFilter.open(c, 'w-skew', { clock: () => Date.now() - 60_000 });
    const ahead = await RedisBloomFilter.open(c, 'w-skew', { clock: () => Date.now() + 7_200_000 });
    const keys = urlKeys(1_500, 'skew', 8);
    for (let i = 0; i < keys.length; i += 50) {
      expect((await onTime.addMany(keys.slice(i, i + 50))).filter(Boolean).length).toBeGreaterThan(45);
      const before = await onTime.export();
      const late = behind.addMany([`late-${i}`]);
      await expect(late).rejects.toThrow(ClockSkewError);
      await expect(late).rejects.toThrow(/-6\d{4} ms off the Redis server's/);
      await expect(ahead.addMany([`early-${i}`])).rejects.toThrow(ClockSkewError);
      await expect(ahead.hasMany([`early-${i}`])).rejects.toThrow(ClockSkewError);
      // Refused before anything is written.
      expect(await onTime.export()).toEqual(before);
    }
    expect((await onTime.hasMany(keys)).every(Boolean)).toBe(true);
    const local = WindowBloomFilter.deserialize(await onTime.export());
    expect(local.hasMany(keys).every(Boolean)).toBe(true);
    // A trusted clock 60 s behind the server's is applied as the newest generation's start: nothing breaks.
    const trusted = await RedisBloomFilter.open(c, 'w-skew', {
      clock: () => Date.now() - 60_000,
      clockTolerance: Number.POSITIVE_INFINITY,
    });
    const more = urlKeys(3_000, 'trusted-late', 8);
    await trusted.addMany(more);
    expect(
      WindowBloomFilter.deserialize(await onTime.export())
        .hasMany(more.slice(-2_000))
        .every(Boolean),
    ).toBe(true);
    await expect(
      RedisBloomFilter.open(c, 'w-skew', { clockTolerance: 5 } as { clockTolerance: number }),
    ).rejects.toThrow(/clockTolerance applies to a caller's clock/);
    await expect(
      RedisBloomFilter.open(c, 'w-skew', { clock: () => Date.now(), clockTolerance: -1 }),
    ).rejects.toThrow(/clockTolerance must be an integer number of ms in \[0, 2\^47\] or Infinity, got -1/);
    await onTime.drop();
  });

  it('refuses a hand-edited ring state that a reader of the file would refuse', async () => {
    const c = single.client;
    const options = { kind: 'window', capacity: 40, fpr: 0.01, seed: 1, duration: 60_000 } as const;
    const cases: [string, (g: number, newest: string) => [string, string]][] = [
      ['a start far in the future', () => ['start:0', '1e300']],
      ['a start past 2^47', () => ['start:0', String(2 ** 47 + 1)]],
      ['a start that is not a number', () => ['start:1', 'nan']],
      ['a full newest generation', (g, newest) => [`keys:${newest}`, String(g)]],
      ['an older generation past g', (g) => ['keys:3', String(g + 1)]],
      ['starts out of order', () => ['start:2', String(Date.now() + 10_000)]],
    ];
    for (const [what, edit] of cases) {
      const filter = await RedisBloomFilter.create(c, 'w-forged', options);
      await filter.addMany(urlKeys(10, 'before', 1));
      const g = WindowBloomFilter.shapeOf(40, 0.01, { duration: 60_000 }).generation;
      const newest = (await c.hget('bloomkit:{w-forged}:meta', 'newest'))!;
      const [field, value] = edit(g, newest);
      const generation = Number(await c.hget('bloomkit:{w-forged}:meta', 'generation'));
      const data = `bloomkit:{w-forged}:data:${generation.toString(16).padStart(8, '0')}`;
      await c.hset('bloomkit:{w-forged}:meta', field, value);
      const bits = await c.getBuffer(data);
      expect(bits?.length, what).toBeGreaterThan(0);
      await expect(filter.add('x'), what).rejects.toThrow(/meta field (start|keys):\d+ of .* is not valid/);
      await expect(filter.has('x'), what).rejects.toThrow(/is not valid/);
      // Nothing written.
      expect(await c.getBuffer(data), what).toEqual(bits);
      await filter.drop();
    }
  });

  it('refuses what a window cannot be, with typed errors', async () => {
    const c = single.client;
    await expect(
      RedisBloomFilter.create(c, 'w-bad', { kind: 'window', bits: 100, hashes: 3 }),
    ).rejects.toThrow(/sized by capacity \(the window\) and fpr/);
    await expect(
      RedisBloomFilter.create(c, 'w-bad', { kind: 'window', capacity: 10, fpr: 0.01, exceptions: true }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      RedisBloomFilter.create(c, 'w-bad', { kind: 'standard', capacity: 10, fpr: 0.01, duration: 5 }),
    ).rejects.toThrow(/duration applies to a window/);
    await expect(
      RedisBloomFilter.create(c, 'w-bad', { kind: 'window', capacity: 10, fpr: 0.01, duration: 0 }),
    ).rejects.toThrow(/duration/);
    // A hand-edited state is refused before use.
    const filter = await RedisBloomFilter.create(c, 'w-meta', { kind: 'window', capacity: 10, fpr: 0.01 });
    await c.hset('bloomkit:{w-meta}:meta', 'newest', '999');
    await expect(filter.add('x')).rejects.toThrow(/meta field newest/);
    await filter.drop();
  });
});

describe("a caller's clock that goes wrong after open", () => {
  it('its reading is refused by the call that read it, naming that call, and nothing is written', async () => {
    let now = Date.now();
    await RedisBloomFilter.create(single.client, 'clock-later', {
      kind: 'window',
      capacity: 1000,
      fpr: 0.01,
      duration: 60_000,
    });
    const filter = await RedisBloomFilter.open(single.client, 'clock-later', { clock: () => now });
    expect(await filter.add('a')).toBe(true);
    for (const reading of [Number.NaN, -1, 2 ** 48]) {
      now = reading;
      await expect(filter.addMany(['b'])).rejects.toThrow(InvalidArgumentError);
      await expect(filter.addMany(['b'])).rejects.toThrow(
        /^RedisBloomFilter\.addMany: the clock must return milliseconds since the epoch in \[0, 2\^47\]/,
      );
      await expect(filter.hasMany(['a'])).rejects.toThrow(/^RedisBloomFilter\.hasMany: the clock/);
    }
    now = Date.now();
    expect(await filter.has('b')).toBe(false);
    expect(await filter.count()).toBe(1);
  });
});
