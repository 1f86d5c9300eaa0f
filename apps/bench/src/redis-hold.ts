import { RedisBloomFilter } from '@bloomkit/redis';
import { Redis } from 'ioredis';
import { urlKeys } from './keys.js';
import { startServer } from './redis.js';

/**
 * `pnpm bench --redis-hold`: how long one function call holds the server at the largest call its budget accepts
 * (functions/bloomkit.lua, "The budget of one call"; the README of @bloomkit/redis promises at most 100 ms). For each
 * case the bench asks the server how many items fit (the refusal of a batch over the budget says so), sends that
 * many, and times the call while a second connection PINGs every {@link PING_EVERY_MS} ms: the longest gap between two
 * PONGs, less the interval, is how long the server answered no one. Each case is measured `reps` times on a fresh
 * filter; one redis-server the bench starts, on loopback.
 */
const PING_EVERY_MS = 5;

interface HoldCase {
  readonly id: string;
  readonly label: string;
  /** Makes the filter `name` (and fills it as the case needs); returns the items of the call and its verb. */
  readonly prepare: (
    client: Redis,
    name: string,
  ) => Promise<{ verb: string; lead: string[]; items: Buffer[] }>;
}

export interface HoldMeasurement {
  readonly id: string;
  readonly items: number;
  readonly callMs: number;
  readonly holdMs: number;
}

export interface HoldResult {
  readonly server: string;
  readonly measurements: readonly HoldMeasurement[];
}

const url = (count: number, seed: number) => urlKeys(count, 'present', seed).map((key) => Buffer.from(key));
const reserve = (client: Redis, name: string, ...args: string[]) =>
  client.call('FCALL', 'bk_reserve', '1', name, ...args);

const CASES: readonly HoldCase[] = [
  ...(['bk_madd', 'bk_mexists'] as const).flatMap((verb) => [
    {
      id: `standard-k7-${verb}`,
      label: `standard, p = 0.01 (k = 7): ${verb} of URL keys`,
      prepare: async (client: Redis, name: string) => {
        await reserve(client, name, 'standard', '1000000', '0.01');
        return { verb, lead: [], items: url(100_000, 1) };
      },
    },
    {
      id: `standard-k63-${verb}`,
      label: `standard, p = 10^-19 (k = 63): ${verb} of URL keys`,
      prepare: async (client: Redis, name: string) => {
        await reserve(client, name, 'standard', '1000000', '1e-19');
        return { verb, lead: [], items: url(100_000, 2) };
      },
    },
    {
      id: `scalable-${verb}`,
      label: `scalable, 40 sub-filters (capacity 10, growth 1.125): ${verb}`,
      prepare: async (client: Redis, name: string) => {
        await reserve(client, name, 'scalable', '10', '0.01', 'GROWTH', '1.125');
        const fill = urlKeys(3_000, 'absent', 3);
        for (let at = 0; at < fill.length; at += 20) {
          await client.call('FCALL', 'bk_madd', '1', name, ...fill.slice(at, at + 20));
        }
        return { verb, lead: [], items: url(100_000, 4) };
      },
    },
    {
      id: `window-${verb}`,
      label: `window of 10^5 keys at p = 0.001 (count window): ${verb}`,
      prepare: async (client: Redis, name: string) => {
        await RedisBloomFilter.create(client, name, { kind: 'window', capacity: 100_000, fpr: 0.001 });
        return { verb, lead: [], items: url(100_000, 5) };
      },
    },
  ]),
  {
    id: 'counting-bk_mdel',
    label: 'counting, p = 0.001: bk_mdel of keys added',
    prepare: async (client, name) => {
      await reserve(client, name, 'counting', '1000000', '0.001');
      const items = url(4_000, 6);
      for (let at = 0; at < items.length; at += 500) {
        await client.call('FCALL', 'bk_madd', '1', name, ...items.slice(at, at + 500));
      }
      return { verb: 'bk_mdel', lead: [], items };
    },
  },
  {
    id: 'exceptions-bk_madd',
    label: 'standard with exceptions: bk_madd',
    prepare: async (client, name) => {
      await reserve(client, name, 'standard', '1000000', '0.01', 'EXCEPTIONS');
      return { verb: 'bk_madd', lead: [], items: url(100_000, 7) };
    },
  },
  {
    id: 'long-item-bk_add',
    label: 'standard: bk_add of one item of the most bytes',
    prepare: async (client, name) => {
      await reserve(client, name, 'standard', '1000000', '0.01');
      // 8 + 7 units of the item, one per 16 bytes: 780,000 bytes are 48,765 of the 50,000.
      return { verb: 'bk_add', lead: [], items: [Buffer.alloc(780_000, 0x61)] };
    },
  },
  {
    id: 'bk_reserve-largest',
    label: 'bk_reserve of the largest filter one call may allocate (4.2·10^7 keys at p = 0.01)',
    prepare: async () => ({ verb: 'bk_reserve', lead: ['standard', '42000000', '0.01'], items: [] }),
  },
];

/**
 * The largest number of `items` (from the front) the server accepts in one call of `verb`: the verb's own refusal of
 * the whole list says it (a refused call writes nothing, so asking changes nothing).
 */
async function largestCall(client: Redis, name: string, verb: string, items: Buffer[]): Promise<number> {
  try {
    await client.call('FCALL', verb, '1', name, ...items);
  } catch (error) {
    const fit = /send at most (\d+) such items/.exec((error as Error).message);
    if (fit !== null) return Number(fit[1]);
    throw error;
  }
  throw new Error(`${verb} accepted all ${items.length} items: give the case more`);
}

async function measureOnce(port: number, one: HoldCase, rep: number): Promise<HoldMeasurement> {
  const client = new Redis({ port });
  const pinger = new Redis({ port });
  try {
    const name = `hold-${one.id}-${rep}`;
    const { verb, lead, items } = await one.prepare(client, name);
    const n = items.length <= 1 ? items.length : await largestCall(client, name, verb, items);
    const args = [...lead, ...items.slice(0, n)];
    let stop = false;
    let last = performance.now();
    let gap = 0;
    const pinging = (async () => {
      while (!stop) {
        await pinger.ping();
        const now = performance.now();
        gap = Math.max(gap, now - last);
        last = now;
        await new Promise((resolve) => setTimeout(resolve, PING_EVERY_MS));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gap = 0;
    const started = performance.now();
    await client.call('FCALL', verb, '1', verb === 'bk_reserve' ? `${name}-made` : name, ...args);
    const callMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 3 * PING_EVERY_MS));
    stop = true;
    await pinging;
    await client.flushall();
    return { id: one.id, items: n, callMs, holdMs: Math.max(0, gap - PING_EVERY_MS) };
  } finally {
    client.disconnect();
    pinger.disconnect();
  }
}

export async function runRedisHold(reps: number, progress: (line: string) => void): Promise<HoldResult> {
  const server = await startServer();
  try {
    const installer = new Redis({ port: server.port });
    await RedisBloomFilter.installFunctions(installer);
    installer.disconnect();
    const measurements: HoldMeasurement[] = [];
    for (let rep = 0; rep < reps; rep++) {
      for (const one of CASES) {
        progress(`[${rep + 1}/${reps}] ${one.label}`);
        measurements.push(await measureOnce(server.port, one, rep));
      }
    }
    return { server: server.version, measurements };
  } finally {
    server.stop();
  }
}

export function redisHoldMarkdown(result: HoldResult): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const rows = CASES.map((one) => {
    const runs = result.measurements.filter((m) => m.id === one.id);
    const holds = runs.map((r) => r.holdMs).sort((a, b) => a - b);
    const calls = runs.map((r) => r.callMs).sort((a, b) => a - b);
    const median = (sorted: number[]) => sorted[sorted.length >> 1] ?? 0;
    return `| ${one.label} | ${(runs[0]?.items ?? 0).toLocaleString('en-US')} | ${ms(median(calls))} | ${ms(median(holds))} | ${ms(holds.at(-1) ?? 0)} |`;
  });
  const worst = Math.max(...result.measurements.map((m) => m.holdMs));
  return [
    `${result.server} on loopback, one node, no persistence. Each call is the largest its budget accepts (items of URL keys of about 40 bytes); the server's hold is the longest gap between a second client's PONGs (one PING every ${PING_EVERY_MS} ms) less that interval. ${result.measurements.length / CASES.length} repetitions, each on a fresh filter. Goal: no accepted call holds the server more than 100 ms; worst measured ${ms(worst)} (${worst <= 100 ? 'met' : '**short**'}).`,
    '',
    '| call | items | call (median) | hold (median) | hold (worst) |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
