import { ChecksumMismatchError, IncompatibleFiltersError, InvalidArgumentError } from '@bloomkit/core';
import { concat, urlKeys } from '@bloomkit/testkit';
import { startCluster, startSingle } from '@bloomkit/testkit/redis';
import fc from 'fast-check';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunksOf, formatCursor, parseCursor, STAGING_TTL_SECONDS, stagingKeys } from '../src/chunks.js';
import { type FileChunk, RedisBloomFilter, type RedisClient, type RedisFilterOptions } from '../src/index.js';

let client: Redis;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSingle());
});
afterAll(async () => stop?.());

async function collect(iterable: AsyncIterable<FileChunk>, stopAfter = Number.POSITIVE_INFINITY) {
  const chunks: FileChunk[] = [];
  for await (const chunk of iterable) {
    chunks.push(chunk);
    if (chunks.length === stopAfter) break;
  }
  return chunks;
}

async function filled(redis: RedisClient, name: string, options: RedisFilterOptions, keys = 2_000) {
  const filter = await RedisBloomFilter.create(redis, name, options);
  await filter.addMany(urlKeys(keys, name));
  return filter;
}

describe('chunksOf and cursors', () => {
  it('cut any parts into chunks that concatenate to the file, each cursor ending its chunk', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 40 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 50 }),
        (parts, chunkBytes) => {
          const file = concat(parts);
          fc.pre(file.length > 0);
          const chunks = [...chunksOf('test', parts, { chunkBytes })];
          expect(concat(chunks.map((chunk) => chunk.bytes))).toEqual(file);
          let end = 0;
          for (const chunk of chunks) {
            end += chunk.bytes.length;
            expect(parseCursor('test', 'cursor', chunk.cursor)).toMatchObject({ end, length: file.length });
          }
          // Resuming after any chunk gives the rest.
          for (const [i, chunk] of chunks.entries()) {
            const rest = [...chunksOf('test', parts, { chunkBytes, after: chunk.cursor })];
            expect(concat(rest.map((c) => c.bytes))).toEqual(
              file.subarray(parseCursor('t', 'c', chunks[i]!.cursor).end),
            );
          }
        },
      ),
    );
  });

  it('refuse a cursor of another file, and anything that is not a cursor', () => {
    // The cursor's CRC covers all but the last 4 bytes (a bloomkit file's own checksum).
    const parts = [new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])];
    const [first] = [...chunksOf('test', parts, { chunkBytes: 2 })];
    expect(() => [
      ...chunksOf('test', [new Uint8Array([1, 2, 9, 4, 5, 6, 7, 8])], { after: first!.cursor }),
    ]).toThrow(IncompatibleFiltersError);
    expect(() => [...chunksOf('test', [new Uint8Array([1, 2, 3])], { after: first!.cursor })]).toThrow(
      IncompatibleFiltersError,
    );
    for (const bad of [
      '',
      'bk1:1:0:00000000',
      'bk1:5:4:00000000',
      'bk1:1:4:xyz',
      'bk2:1:4:00000000',
      // Lengths past 2^39 bytes (twice the largest filter Redis holds), however many digits.
      'bk1:1:9007199254740991:00000000',
      'bk1:1:100000000000000:00000000',
      `bk1:1:${2 ** 39 + 1}:00000000`,
      `bk1:1:${'9'.repeat(400)}:00000000`,
      'bk1:1:1e14:00000000',
      7,
      null,
    ]) {
      expect(() => parseCursor('test', 'after', bad)).toThrow(/after must be a cursor/);
    }
    expect(formatCursor({ end: 3, length: 9, crc: 0xabc })).toBe('bk1:3:9:00000abc');
    expect(parseCursor('test', 'after', `bk1:1:${2 ** 39}:00000000`).length).toBe(2 ** 39);
    expect(() => [...chunksOf('test', parts, { chunkBytes: 0 })]).toThrow(/chunkBytes/);
  });
});

describe('exportChunks and importChunk on one node', () => {
  const kinds: RedisFilterOptions[] = [
    { kind: 'standard', capacity: 3_000, fpr: 0.01, seed: 1 },
    { kind: 'blocked', capacity: 3_000, fpr: 0.01, seed: 2, shards: 3 },
    { kind: 'counting', capacity: 3_000, fpr: 0.01, seed: 3 },
    { kind: 'scalable', capacity: 300, fpr: 0.01, seed: 4 },
    { kind: 'window', capacity: 3_000, fpr: 0.01, seed: 5 },
    { kind: 'standard', capacity: 3_000, fpr: 0.01, seed: 6, exceptions: true },
  ];

  it.each(kinds)('copy a $kind filter chunk by chunk, byte for byte', async (options) => {
    const name = `chunks:${options.kind}:${options.seed}`;
    const source = await filled(client, name, options);
    const whole = await source.export();
    const chunks = await collect(source.exportChunks({ chunkBytes: 1000 }));
    expect(chunks.length).toBe(Math.ceil(whole.length / 1000));
    expect(concat(chunks.map((chunk) => chunk.bytes))).toEqual(whole);

    const copyName = `${name}:copy`;
    let copy: RedisBloomFilter | undefined;
    for (const [i, chunk] of chunks.entries()) {
      copy = await RedisBloomFilter.importChunk(client, copyName, chunk.cursor, chunk.bytes);
      expect(copy === undefined).toBe(i < chunks.length - 1);
    }
    expect(await copy!.export()).toEqual(whole);
    expect(await RedisBloomFilter.importProgress(client, copyName)).toBeUndefined();
    expect(await client.keys(`bloomkit:{${copyName}}:import*`)).toEqual([]);
    await source.drop();
    await copy!.drop();
  });

  it('resume after either side stops: the importer says where it stands, the exporter goes on from there', async () => {
    const source = await filled(
      client,
      'resume:source',
      { kind: 'blocked', capacity: 20_000, fpr: 0.001 },
      10_000,
    );
    const whole = await source.export();
    // The importer takes 5 chunks, then its process "dies".
    for (const chunk of await collect(source.exportChunks({ chunkBytes: 4096 }), 5)) {
      expect(
        await RedisBloomFilter.importChunk(client, 'resume:copy', chunk.cursor, chunk.bytes),
      ).toBeUndefined();
    }
    const progress = await RedisBloomFilter.importProgress(client, 'resume:copy');
    expect(parseCursor('t', 'c', progress)).toMatchObject({ end: 5 * 4096, length: whole.length });
    expect(await client.ttl(stagingKeys('resume:copy').progress)).toBeGreaterThan(STAGING_TTL_SECONDS - 60);

    // Another process opens the source and exports the rest, after what the importer holds.
    const reopened = await RedisBloomFilter.open(client, 'resume:source');
    const rest = await collect(reopened.exportChunks({ after: progress!, chunkBytes: 4096 }));
    // A chunk sent again is ignored.
    const again = await collect(reopened.exportChunks({ chunkBytes: 4096 }), 3);
    expect(
      await RedisBloomFilter.importChunk(client, 'resume:copy', again[2]!.cursor, again[2]!.bytes),
    ).toBeUndefined();
    let copy: RedisBloomFilter | undefined;
    for (const chunk of rest)
      copy = await RedisBloomFilter.importChunk(client, 'resume:copy', chunk.cursor, chunk.bytes);
    expect(await copy!.export()).toEqual(whole);
    expect(await copy!.count()).toBe(await source.count());
    await copy!.drop();

    // The source changes: an export resumed from an old cursor is refused.
    await source.add('https://changed.example/');
    await expect(collect(source.exportChunks({ after: progress! }))).rejects.toThrow(
      IncompatibleFiltersError,
    );
    await source.drop();
  });

  it('a staging hash planted by another client (received 2^39 - 1 of 2^39 bytes) allocates nothing: a FormatError, and it is discarded', async () => {
    const length = 2 ** 39;
    // Another client claims that all but the last byte of a 512 GiB file were staged.
    await client.hset(
      'bloomkit:{planted}:import',
      'length',
      length,
      'crc',
      '0badc0de',
      'received',
      length - 1,
    );
    const cursor = `bk1:${length}:${length}:0badc0de`;
    const before = process.memoryUsage().rss;
    await expect(
      RedisBloomFilter.importChunk(client, 'planted', cursor, new Uint8Array([1])),
    ).rejects.toThrow(
      /the staging of "planted" says 549755813887 bytes were received, but its segment 2047 holds 0 bytes/,
    );
    // Nothing of the size the hash claims was reserved (a segment is 256 MiB; 2,048 of them before the check).
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
    expect(await RedisBloomFilter.importProgress(client, 'planted')).toBeUndefined();
    expect(await client.keys('bloomkit:{planted}:*')).toEqual([]);
    // And nothing was allocated in Redis either: the last segment was never written.
    expect(Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1])).toBeLessThan(200 * 1024 * 1024);
  });

  it('refuse a gap, a corrupt chunk, a name that exists and bytes that do not fit the cursor', async () => {
    const source = await filled(client, 'bad:source', { kind: 'standard', capacity: 5_000, fpr: 0.01 });
    const chunks = await collect(source.exportChunks({ chunkBytes: 1024 }));
    expect(chunks.length).toBeGreaterThan(3);

    // A chunk past a gap: nothing staged changes.
    await RedisBloomFilter.importChunk(client, 'bad:copy', chunks[0]!.cursor, chunks[0]!.bytes);
    await expect(
      RedisBloomFilter.importChunk(client, 'bad:copy', chunks[2]!.cursor, chunks[2]!.bytes),
    ).rejects.toThrow(/starts at byte 2048 but only 1024 were received/);
    expect(await RedisBloomFilter.importProgress(client, 'bad:copy')).toBe(chunks[0]!.cursor);
    // Bytes that do not end at the cursor.
    await expect(
      RedisBloomFilter.importChunk(client, 'bad:copy', chunks[1]!.cursor, new Uint8Array(0)),
    ).rejects.toThrow(InvalidArgumentError);

    // A corrupt byte is found when the file is whole: nothing is created and the staged bytes are gone.
    for (const [i, chunk] of chunks.entries()) {
      if (i === 0) continue;
      const bytes = i === 2 ? chunk.bytes.map((byte, at) => (at === 100 ? byte ^ 1 : byte)) : chunk.bytes;
      const done = RedisBloomFilter.importChunk(client, 'bad:copy', chunk.cursor, bytes);
      if (i < chunks.length - 1) await done;
      else await expect(done).rejects.toThrow(ChecksumMismatchError);
    }
    expect(await client.exists('bloomkit:{bad:copy}:meta')).toBe(0);
    expect(await client.keys('bloomkit:{bad:copy}:import*')).toEqual([]);

    // A first chunk of another file replaces an unfinished import; a later chunk of another file is refused.
    const other = await filled(client, 'bad:other', {
      kind: 'standard',
      capacity: 5_000,
      fpr: 0.01,
      seed: 9,
    });
    const otherChunks = await collect(other.exportChunks({ chunkBytes: 1024 }));
    await RedisBloomFilter.importChunk(client, 'bad:copy', chunks[0]!.cursor, chunks[0]!.bytes);
    await expect(
      RedisBloomFilter.importChunk(client, 'bad:copy', otherChunks[1]!.cursor, otherChunks[1]!.bytes),
    ).rejects.toThrow(/no import of this file is under way/);
    await RedisBloomFilter.importChunk(client, 'bad:copy', otherChunks[0]!.cursor, otherChunks[0]!.bytes);
    expect(await RedisBloomFilter.importProgress(client, 'bad:copy')).toBe(otherChunks[0]!.cursor);

    // The name exists.
    await expect(
      RedisBloomFilter.importChunk(client, 'bad:source', chunks[0]!.cursor, chunks[0]!.bytes),
    ).rejects.toThrow(IncompatibleFiltersError);
    await expect(RedisBloomFilter.importChunk(client, 'bad:copy', 'bk1:x', chunks[0]!.bytes)).rejects.toThrow(
      /cursor must be a cursor/,
    );
    // Forged cursors: refused before any key is written; a first chunk of the largest file a cursor may claim
    // stages its one byte, creates two keys and sends a few commands, not one per claimed segment.
    for (const forged of ['bk1:1:9007199254740991:00000000', 'bk1:1:100000000000000:00000000']) {
      await expect(
        RedisBloomFilter.importChunk(client, 'forged', forged, Uint8Array.of(0x42)),
      ).rejects.toThrow(/1 ≤ length ≤ 2\^39/);
    }
    expect(await client.keys('bloomkit:{forged}*')).toEqual([]);
    const before = await commandCount(client);
    const largest = `bk1:1:${2 ** 39}:00000000`;
    expect(
      await RedisBloomFilter.importChunk(client, 'forged', largest, Uint8Array.of(0x42)),
    ).toBeUndefined();
    expect((await client.keys('bloomkit:{forged}*')).sort()).toEqual([
      'bloomkit:{forged}:import',
      'bloomkit:{forged}:import:0',
    ]);
    expect((await commandCount(client)) - before).toBeLessThan(20);
    await client.del('bloomkit:{forged}:import', 'bloomkit:{forged}:import:0');
    // A corrupt byte in the file's own checksum (its last 4 bytes, outside the cursors' CRC) fails the import's
    // decode: the staged bytes are discarded too.
    const last = chunks.length - 1;
    for (const [i, chunk] of chunks.entries()) {
      const bytes =
        i === last
          ? chunk.bytes.map((byte, at) => (at === chunk.bytes.length - 1 ? byte ^ 1 : byte))
          : chunk.bytes;
      const done = RedisBloomFilter.importChunk(client, 'bad:trailer', chunk.cursor, bytes);
      if (i < last) await done;
      else await expect(done).rejects.toThrow(ChecksumMismatchError);
    }
    expect(await client.keys('bloomkit:{bad:trailer}*')).toEqual([]);
    for (const name of ['bad:source', 'bad:other']) await (await RedisBloomFilter.open(client, name)).drop();
    await client.del(stagingKeys('bad:copy').progress, stagingKeys('bad:copy').segment(0));
  });
});

/** Commands the server has run (INFO stats' total_commands_processed). */
async function commandCount(client: Redis): Promise<number> {
  const stats = await client.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(stats)![1]);
}

describe('exportChunks and importChunk across a 3-node cluster', () => {
  let cluster: Cluster;
  let stopCluster: () => Promise<void>;
  beforeAll(async () => {
    ({ client: cluster, stop: stopCluster } = await startCluster(3));
  });
  afterAll(async () => stopCluster?.());

  it('copy a sharded blocked filter between names, the staging in the new name’s slot', async () => {
    const source = await filled(
      cluster,
      'c:source',
      { kind: 'blocked', capacity: 20_000, fpr: 0.01, shards: 6 },
      5_000,
    );
    const whole = await source.export();
    let copy: RedisBloomFilter | undefined;
    for await (const chunk of source.exportChunks({ chunkBytes: 8192 })) {
      copy = await RedisBloomFilter.importChunk(cluster, 'c:copy', chunk.cursor, chunk.bytes, { shards: 4 });
    }
    expect(copy!.params.shards).toBe(4);
    expect(await copy!.export()).toEqual(whole);
    await source.drop();
    await copy!.drop();
  });
});
