import { runQuickStart } from '@bloomkit/testkit';
import { type RedisProcess, startRedis } from '@bloomkit/testkit/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../src/index.js';

let server: RedisProcess;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.kill());

describe('README Quick start', () => {
  it('runs against a real server and prints what its comments say', async () => {
    // The README connects to 127.0.0.1:6379; here the same code reaches this test's server.
    const port = server.port;
    const ioredis = {
      Redis: class extends Redis {
        constructor() {
          super({ host: '127.0.0.1', port });
        }
      },
    };
    const { printed, expected } = await runQuickStart(new URL('../README.md', import.meta.url).pathname, {
      '@bloomkit/redis': pkg,
      ioredis,
    });
    expect(expected.length).toBeGreaterThan(5);
    expect(printed).toEqual(expected);
  });
});
