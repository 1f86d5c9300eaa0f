import { readFileSync } from 'node:fs';
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
  /** Server time per key in the commands the client sent (INFO commandstats, µs), adding and probing absent keys. */
  readonly serverAddMicros: number;
  readonly serverHasMicros: number;
  /** The server process's CPU per added key (INFO cpu: user + system, µs): command time plus reading and replying. */
  readonly serverCpuAddMicros: number;
  /** The same per absent and per present key looked up. */
  readonly serverCpuHasMicros: number;
  readonly serverCpuPresentMicros: number;
}

const CAPACITY = 1_000_000;
const FPR = 0.01;
const BATCH = 1000;

/** The contenders: bloomkit's API and the two recipes users write by hand. */
export const REDIS_CONTENDERS = [
  'bloomkit-addMany',
  'bloomkit-addMany-100',
  'bloomkit-blocked-addMany',
  'bloomkit-add',
  'functions-madd',
  'functions-madd-100',
  'functions-add',
  'functions-prototype',
  'setbit-recipe',
  'lua-setbit-batch',
  'bitfield-recipe',
] as const;

/** The commands each contender sends (commands that scripts and functions call inside are counted apart). */
function sentCommands(contender: RedisContender): readonly string[] {
  if (contender.startsWith('functions')) return ['fcall', 'fcall_ro'];
  if (contender === 'setbit-recipe') return ['setbit', 'getbit'];
  if (contender === 'lua-setbit-batch') return ['eval', 'evalsha'];
  if (contender === 'bitfield-recipe') return ['bitfield', 'bitfield_ro'];
  return ['bitfield', 'bitfield_ro', 'eval', 'evalsha'];
}

/** µs the server spent in `commands` since the last CONFIG RESETSTAT. */
async function commandMicros(client: Redis, commands: readonly string[]): Promise<number> {
  const stats = await client.info('commandstats');
  let total = 0;
  for (const [, name, usec] of stats.matchAll(/^cmdstat_([a-z_|]+):calls=\d+,usec=(\d+)/gm)) {
    if (commands.includes(name!)) total += Number(usec);
  }
  return total;
}

/** The server process's CPU so far (user + system), µs. */
async function serverCpu(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}
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

/** The batch a contender sends: 1, 100 or 1,000 keys. */
function batchOf(contender: RedisContender): number {
  if (contender === 'bloomkit-add' || contender === 'setbit-recipe' || contender === 'functions-add')
    return 1;
  return contender.endsWith('-100') ? 100 : BATCH;
}

export async function measureRedis(contender: RedisContender, port: number): Promise<RedisMeasurement> {
  const client = new Redis({ port, host: '127.0.0.1' });
  await client.flushall();
  try {
    const batch = batchOf(contender);
    const n =
      contender === 'setbit-recipe' ? 5_000 : batch === 1 ? 20_000 : batch === 100 ? 100_000 : 200_000;
    const keys = urlKeys(n, 'present');
    const absent = urlKeys(n, 'absent');
    const sent = sentCommands(contender);
    const phases = await phasesOf(contender, client, batch);
    const measure = async (work: () => Promise<void>) => {
      await client.config('RESETSTAT');
      const cpu = await serverCpu(client);
      const seconds = await time(work);
      return { seconds, micros: await commandMicros(client, sent), cpu: (await serverCpu(client)) - cpu };
    };
    const inBatches = (list: readonly string[], each: (slice: string[]) => Promise<unknown>) => async () => {
      for (let at = 0; at < list.length; at += batch) await each(list.slice(at, at + batch));
    };
    const add = await measure(inBatches(keys, phases.add));
    const has = await measure(inBatches(absent, phases.has));
    const present = await measure(inBatches(keys, phases.has));
    return {
      contender,
      addsPerSecond: n / add.seconds,
      hasPerSecond: n / has.seconds,
      hasPresentPerSecond: n / present.seconds,
      keys: n,
      serverAddMicros: add.micros / n,
      serverHasMicros: has.micros / n,
      serverCpuAddMicros: add.cpu / n,
      serverCpuHasMicros: has.cpu / n,
      serverCpuPresentMicros: present.cpu / n,
    };
  } finally {
    client.disconnect();
  }
}

/** How a contender adds and probes one batch. */
async function phasesOf(
  contender: RedisContender,
  client: Redis,
  batch: number,
): Promise<{ add: (keys: string[]) => Promise<unknown>; has: (keys: string[]) => Promise<unknown> }> {
  if (contender.startsWith('bloomkit')) {
    const kind = contender === 'bloomkit-blocked-addMany' ? 'blocked' : 'standard';
    const filter = await RedisBloomFilter.create(client, 'bench', { kind, capacity: CAPACITY, fpr: FPR });
    return batch === 1
      ? { add: (keys) => filter.add(keys[0]!), has: (keys) => filter.has(keys[0]!) }
      : { add: (keys) => filter.addMany(keys), has: (keys) => filter.hasMany(keys) };
  }
  if (contender === 'functions-prototype') return prototypePhases(client);
  if (contender.startsWith('functions')) {
    await RedisBloomFilter.installFunctions(client);
    await client.call('FCALL', 'bk_reserve', '1', 'bench', 'standard', String(CAPACITY), String(FPR));
    return batch === 1
      ? {
          add: (keys) => client.call('FCALL', 'bk_add', '1', 'bench', keys[0]!),
          has: (keys) => client.call('FCALL_RO', 'bk_exists', '1', 'bench', keys[0]!),
        }
      : {
          add: (keys) => client.call('FCALL', 'bk_madd', '1', 'bench', ...keys),
          has: (keys) => client.call('FCALL_RO', 'bk_mexists', '1', 'bench', ...keys),
        };
  }
  const probe = await RedisBloomFilter.create(client, 'shape', {
    kind: 'standard',
    capacity: CAPACITY,
    fpr: FPR,
  });
  const positions = recipePositions(probe.bits, probe.hashes);
  if (contender === 'setbit-recipe') {
    return {
      add: async ([key]) => {
        for (const p of positions(key!)) await client.setbit('bits', p, 1);
      },
      has: async ([key]) => {
        for (const p of positions(key!)) if ((await client.getbit('bits', p)) === 0) break;
      },
    };
  }
  if (contender === 'bitfield-recipe') {
    // Positions from the client, one BITFIELD (BITFIELD_RO) per batch, every position of every key.
    const command = (op: string, keys: string[]) =>
      keys.flatMap((key) => positions(key).flatMap((p) => (op === 'SET' ? [op, 'u1', p, 1] : [op, 'u1', p])));
    return {
      add: (keys) => client.call('BITFIELD', 'bits', ...command('SET', keys)),
      has: (keys) => client.call('BITFIELD_RO', 'bits', ...command('GET', keys)),
    };
  }
  return {
    add: (keys) => client.eval(LUA_ADD, 1, 'bits', probe.hashes, pack(keys.map(positions))),
    has: (keys) => client.eval(LUA_HAS, 1, 'bits', probe.hashes, pack(keys.map(positions))),
  };
}

/**
 * The yardstick of the function library (lua/prototype.lua): the same algorithm with none of its checks, on a
 * string of the standard filter's m bits, sized as bk_reserve sizes it.
 */
async function prototypePhases(
  client: Redis,
): Promise<{ add: (keys: string[]) => Promise<unknown>; has: (keys: string[]) => Promise<unknown> }> {
  const source = readFileSync(new URL('../lua/prototype.lua', import.meta.url), 'utf8');
  await client.call('FUNCTION', 'LOAD', 'REPLACE', source);
  await RedisBloomFilter.installFunctions(client);
  await client.call('FCALL', 'bk_reserve', '1', 'shape', 'standard', String(CAPACITY), String(FPR));
  const info = (await client.call('FCALL_RO', 'bk_info', '1', 'shape')) as (string | number)[];
  const field = (name: string) => String(info[info.indexOf(name) + 1]);
  const bits = field('Bits');
  const hashes = field('Hashes');
  await client.setrange('proto', Math.ceil(Number(bits) / 8) - 1, '\0');
  return {
    add: (keys) => client.call('FCALL', 'proto_madd', '1', 'proto', bits, hashes, '0', ...keys),
    has: (keys) => client.call('FCALL_RO', 'proto_mexists', '1', 'proto', bits, hashes, '0', ...keys),
  };
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
