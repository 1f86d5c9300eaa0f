import { urlKeys } from '@bloomkit/testkit';
import { startRedis } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisBloomFilter, RedisFilterError } from '../src/index.js';

describe('a connection lost mid-batch', () => {
  it('rejects the whole batch with a RedisFilterError: no answer, so no key is reported as added', async () => {
    const server = await startRedis();
    const client = new Redis({
      host: '127.0.0.1',
      port: server.port,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      const filter = await RedisBloomFilter.create(client, 'lost', {
        kind: 'standard',
        capacity: 1_000_000,
        fpr: 0.01,
      });
      const before = urlKeys(1000, 'acknowledged');
      expect((await filter.addMany(before)).every(Boolean)).toBe(true);
      const batch = filter.addMany(urlKeys(200_000, 'in-flight'));
      server.process.kill('SIGKILL');
      const outcome = await batch.then(
        (answers) => ({ answers }),
        (error: unknown) => ({ error }),
      );
      expect('error' in outcome).toBe(true);
      expect((outcome as { error: unknown }).error).toBeInstanceOf(RedisFilterError);
      expect(String((outcome as { error: Error }).error.message)).toMatch(/Redis commands failed/);
    } finally {
      client.disconnect();
      server.kill();
    }
  });
});
