import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisBloomFilter } from '../src/index.js';

/** A loopback port with nothing listening: bound, read, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the README's connection options", () => {
  it('fail a closed port after three short reconnects, with the connection error', async () => {
    const delays: (number | null)[] = [];
    const client = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      connectTimeout: 1000,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => {
        const delay = attempt > 3 ? null : 100 * attempt;
        delays.push(delay);
        return delay;
      },
    });
    client.on('error', () => {});
    await expect(
      RedisBloomFilter.create(client, 'closed', { kind: 'standard', capacity: 1000, fpr: 0.01 }),
    ).rejects.toThrow(/ECONNREFUSED|connection is closed|max retries/i);
    // What "about a second" is made of (no clock is read here): reconnects after 100, 200 and
    // 300 ms, and the client gives up for good at its fourth attempt.
    await new Promise((resolve) => client.once('end', resolve));
    expect(delays).toEqual([100, 200, 300, null]);
    client.disconnect();
  });
});
