import { derivePositions, murmur3x86_128Into, standardLayout } from '@bloomkit/core';
import { RedisBloomFilter } from '@bloomkit/redis';
import { Redis } from 'ioredis';
import { urlKeys } from './keys.js';

/**
 * One Redis measurement in its own process: `node redis-child.js CONTENDER PORT`. Prints JSON
 * `{ addsPerSecond, hasPerSecond, hasPresentPerSecond, keys }`. The server is the bench's; the child flushes it
 * first. Lookups run twice, over as many absent keys (`hasPerSecond`) and over the added keys
 * (`hasPresentPerSecond`): an absent key can stop at its first 0 bit, a present one reads all k.
 */
export interface RedisMeasurement {
  readonly contender: string;
  readonly addsPerSecond: number;
  readonly hasPerSecond: number;
  readonly hasPresentPerSecond: number;
  readonly keys: number;
}

const CAPACITY = 1_000_000;
const FPR = 0.01;
const BATCH = 1000;

/** The contenders: bloomkit's API and the two recipes users write by hand. */
export const REDIS_CONTENDERS = [
  'bloomkit-addMany',
  'bloomkit-blocked-addMany',
  'bloomkit-add',
  'setbit-recipe',
  'lua-setbit-batch',
] as const;
export type RedisContender = (typeof REDIS_CONTENDERS)[number];

async function time(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** The standard filter's k positions, as bloomkit computes them, mapped to Redis's bit numbering (i XOR 7). */
function recipePositions(bits: number, hashes: number) {
  const geometry = standardLayout.geometry(bits, hashes);
  const hash = new Uint32Array(4);
  const out = new Float64Array(hashes);
  return (key: string): number[] => {
    murmur3x86_128Into(key, 0, hash);
    derivePositions(hash, geometry, hashes, out, 0);
    return Array.from(out, (i) => i - (i % 8) + (7 - (i % 8)));
  };
}

/** The hand-made Lua batch: positions packed in one binary argument, SETBIT (GETBIT) per position. */
const LUA_ADD = `
local k = tonumber(ARGV[1]); local p = ARGV[2]; local n = #p / (4 * k); local out = {}
for i = 0, n - 1 do
  local new = 0
  for h = 0, k - 1 do
    local b1, b2, b3, b4 = string.byte(p, 4 * (i * k + h) + 1, 4 * (i * k + h) + 4)
    if redis.call('SETBIT', KEYS[1], b1 + b2 * 256 + b3 * 65536 + b4 * 16777216, 1) == 0 then new = 1 end
  end
  out[i + 1] = new
end
return out`;
const LUA_HAS = `
local k = tonumber(ARGV[1]); local p = ARGV[2]; local n = #p / (4 * k); local out = {}
for i = 0, n - 1 do
  local present = 1
  for h = 0, k - 1 do
    local b1, b2, b3, b4 = string.byte(p, 4 * (i * k + h) + 1, 4 * (i * k + h) + 4)
    if redis.call('GETBIT', KEYS[1], b1 + b2 * 256 + b3 * 65536 + b4 * 16777216) == 0 then present = 0; break end
  end
  out[i + 1] = present
end
return out`;

function pack(positions: number[][]): Buffer {
  const out = Buffer.allocUnsafe(positions.length * positions[0]!.length * 4);
  let at = 0;
  for (const list of positions) for (const p of list) at = out.writeUInt32LE(p, at);
  return out;
}

export async function measureRedis(contender: RedisContender, port: number): Promise<RedisMeasurement> {
  const client = new Redis({ port, host: '127.0.0.1' });
  await client.flushall();
  try {
    const single = contender === 'bloomkit-add' || contender === 'setbit-recipe';
    const n = contender === 'setbit-recipe' ? 5_000 : single ? 20_000 : 200_000;
    const keys = urlKeys(n, 'present');
    const absent = urlKeys(n, 'absent');
    let addSeconds = 0;
    let hasSeconds = 0;
    let presentSeconds = 0;
    if (contender.startsWith('bloomkit')) {
      const kind = contender === 'bloomkit-blocked-addMany' ? 'blocked' : 'standard';
      const filter = await RedisBloomFilter.create(client, 'bench', { kind, capacity: CAPACITY, fpr: FPR });
      if (single) {
        addSeconds = await time(async () => {
          for (const key of keys) await filter.add(key);
        });
        hasSeconds = await time(async () => {
          for (const key of absent) await filter.has(key);
        });
        presentSeconds = await time(async () => {
          for (const key of keys) await filter.has(key);
        });
      } else {
        addSeconds = await time(async () => {
          for (let at = 0; at < n; at += BATCH) await filter.addMany(keys.slice(at, at + BATCH));
        });
        hasSeconds = await time(async () => {
          for (let at = 0; at < n; at += BATCH) await filter.hasMany(absent.slice(at, at + BATCH));
        });
        presentSeconds = await time(async () => {
          for (let at = 0; at < n; at += BATCH) await filter.hasMany(keys.slice(at, at + BATCH));
        });
      }
    } else {
      const probe = await RedisBloomFilter.create(client, 'shape', {
        kind: 'standard',
        capacity: CAPACITY,
        fpr: FPR,
      });
      const positions = recipePositions(probe.bits, probe.hashes);
      if (contender === 'setbit-recipe') {
        addSeconds = await time(async () => {
          for (const key of keys) for (const p of positions(key)) await client.setbit('bits', p, 1);
        });
        const lookup = async (list: readonly string[]) => {
          for (const key of list) {
            for (const p of positions(key)) if ((await client.getbit('bits', p)) === 0) break;
          }
        };
        hasSeconds = await time(() => lookup(absent));
        presentSeconds = await time(() => lookup(keys));
      } else {
        addSeconds = await time(async () => {
          for (let at = 0; at < n; at += BATCH) {
            await client.eval(
              LUA_ADD,
              1,
              'bits',
              probe.hashes,
              pack(keys.slice(at, at + BATCH).map(positions)),
            );
          }
        });
        const lookup = async (list: readonly string[]) => {
          for (let at = 0; at < n; at += BATCH) {
            await client.eval(
              LUA_HAS,
              1,
              'bits',
              probe.hashes,
              pack(list.slice(at, at + BATCH).map(positions)),
            );
          }
        };
        hasSeconds = await time(() => lookup(absent));
        presentSeconds = await time(() => lookup(keys));
      }
    }
    return {
      contender,
      addsPerSecond: n / addSeconds,
      hasPerSecond: n / hasSeconds,
      hasPresentPerSecond: n / presentSeconds,
      keys: n,
    };
  } finally {
    client.disconnect();
  }
}

// `node redis-child.js CONTENDER PORT`
if (process.argv[1]?.endsWith('redis-child.js')) {
  measureRedis(process.argv[2] as RedisContender, Number(process.argv[3]))
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
}
