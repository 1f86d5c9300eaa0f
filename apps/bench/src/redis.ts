import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDIS_CONTENDERS, type RedisContender, type RedisMeasurement } from './redis-child.js';

/**
 * `pnpm bench --redis`: bloomkit's Redis filters against the recipes users write by hand, on one redis-server the
 * bench starts on a free loopback port (no persistence) and stops. Each measurement runs in a fresh process, one at
 * a time; the client and the server share this machine's cores. Batches are 1,000 URL keys.
 */
const CHILD = fileURLToPath(new URL('./redis-child.js', import.meta.url));

const LABELS: Record<RedisContender, string> = {
  'bloomkit-addMany': 'bloomkit standard, Node client: addMany / hasMany (batches of 1,000)',
  'bloomkit-addMany-100': 'bloomkit standard, Node client: addMany / hasMany (batches of 100)',
  'bloomkit-blocked-addMany': 'bloomkit blocked, Node client: addMany / hasMany (batches of 1,000)',
  'bloomkit-add': 'bloomkit standard, Node client: add / has one key at a time',
  'functions-madd': 'bloomkit standard, functions: FCALL bk_madd / bk_mexists (batches of 1,000)',
  'functions-madd-100': 'bloomkit standard, functions: FCALL bk_madd / bk_mexists (batches of 100)',
  'functions-add': 'bloomkit standard, functions: FCALL bk_add / bk_exists one key at a time',
  'functions-prototype':
    'the functions’ yardstick: the same algorithm with none of its checks (lua/prototype.lua)',
  'bitfield-recipe': 'client positions, one BITFIELD / BITFIELD_RO per batch (a plain recipe)',
  'setbit-recipe': 'SETBIT / GETBIT per position, one key at a time (the classic recipe)',
  'lua-setbit-batch': 'Lua batch, positions packed in one argument, SETBIT / GETBIT per position',
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export async function startServer(): Promise<{ port: number; version: string; stop: () => void }> {
  let version: string;
  try {
    version = execFileSync('redis-server', ['--version'], { encoding: 'utf8' })
      .trim()
      .split(' ')
      .slice(0, 3)
      .join(' ');
  } catch {
    throw new Error('pnpm bench --redis needs redis-server (apt-get install redis-server)');
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bloomkit-bench-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const stop = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  for (let tries = 0; ; tries++) {
    try {
      if (
        execFileSync('redis-cli', ['-p', String(port), 'ping'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim() === 'PONG'
      )
        break;
    } catch {
      // Starting.
    }
    if (tries > 100) {
      stop();
      throw new Error('redis-server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, version, stop };
}

function runChild(contender: RedisContender, port: number): Promise<RedisMeasurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, contender, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as RedisMeasurement)
        : reject(new Error(`${contender} exited with ${code}`)),
    );
  });
}

export interface RedisResult {
  readonly server: string;
  readonly measurements: readonly RedisMeasurement[];
}

export async function runRedis(repetitions: number, progress: (line: string) => void): Promise<RedisResult> {
  const server = await startServer();
  try {
    const measurements: RedisMeasurement[] = [];
    for (let rep = 0; rep < repetitions; rep++) {
      for (const contender of REDIS_CONTENDERS) {
        progress(`[${rep + 1}/${repetitions}] ${LABELS[contender]}`);
        measurements.push(await runChild(contender, server.port));
      }
    }
    return { server: server.version, measurements };
  } finally {
    server.stop();
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function redisMarkdown(result: RedisResult): string {
  const stat = (contender: RedisContender) => {
    const runs = result.measurements.filter((m) => m.contender === contender);
    return {
      add: median(runs.map((r) => r.addsPerSecond)),
      has: median(runs.map((r) => r.hasPerSecond)),
      present: median(runs.map((r) => r.hasPresentPerSecond)),
      serverAdd: median(runs.map((r) => r.serverAddMicros)),
      serverHas: median(runs.map((r) => r.serverHasMicros)),
      cpuAdd: median(runs.map((r) => r.serverCpuAddMicros)),
      cpuHas: median(runs.map((r) => r.serverCpuHasMicros)),
      cpuPresent: median(runs.map((r) => r.serverCpuPresentMicros)),
      reps: runs.length,
      keys: runs[0]?.keys ?? 0,
    };
  };
  const k = (n: number) => `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} k/s`;
  const us = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} µs`;
  const many = stat('bloomkit-addMany');
  const single = stat('bloomkit-add');
  const setbit = stat('setbit-recipe');
  const lua = stat('lua-setbit-batch');
  const fn = stat('functions-madd');
  const proto = stat('functions-prototype');
  const overProto = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  // The issue's reference machine: the hand-made Lua batch cost 1.9 µs of server time per key, the functions' goal
  // is 6.5 µs; on another machine the same ratio to the Lua batch measured in this run is the comparable bound.
  const fnBound = (6.5 / 1.9) * lua.serverAdd;
  const goals = [
    `| \`addMany\` ≥ 150 k adds/s (batches of 1,000 URL keys) | ${many.add >= 150_000 ? 'met' : '**short**'} | ${k(many.add)} (Lua SETBIT batch: ${k(lua.add)}) |`,
    `| \`hasMany\` ≥ 300 k/s for absent and for present keys | ${Math.min(many.has, many.present) >= 300_000 ? 'met' : '**short**'} | absent ${k(many.has)}, present ${k(many.present)} (Lua GETBIT batch: ${k(lua.has)}, ${k(lua.present)}) |`,
    `| single-key \`add\` ≥ 5× the SETBIT recipe | ${single.add / setbit.add >= 5 ? 'met' : '**short**'} | ${(single.add / setbit.add).toFixed(1)}× (${k(single.add)} vs ${k(setbit.add)}) |`,
    `| functions: server time ≤ 6.5 µs per key (batches of 1,000; 3.4× the Lua batch's 1.9 µs where the goal was set) | ${fn.serverAdd <= 6.5 ? 'met' : fn.serverAdd <= fnBound ? 'met as a ratio' : '**short**'} | ${us(fn.serverAdd)}, ${(fn.serverAdd / lua.serverAdd).toFixed(2)}× the Lua batch's ${us(lua.serverAdd)} here (bound at this machine's speed: ${us(fnBound)}) |`,
    `| functions: server CPU per key ≤ 1.15× the prototype's (batches of 1,000; add, absent and present lookups) | ${Math.max(fn.cpuAdd / proto.cpuAdd, fn.cpuHas / proto.cpuHas, fn.cpuPresent / proto.cpuPresent) <= 1.15 ? 'met' : '**short**'} | add ${us(fn.cpuAdd)} vs ${us(proto.cpuAdd)} (${overProto(fn.cpuAdd, proto.cpuAdd)}), absent ${us(fn.cpuHas)} vs ${us(proto.cpuHas)} (${overProto(fn.cpuHas, proto.cpuHas)}), present ${us(fn.cpuPresent)} vs ${us(proto.cpuPresent)} (${overProto(fn.cpuPresent, proto.cpuPresent)}) |`,
    `| functions: ≥ 120 k keys/s from one client (batches of 1,000) | ${fn.add >= 120_000 ? 'met' : '**short**'} | ${k(fn.add)} adds, ${k(fn.has)} absent lookups (Node client: ${k(many.add)}) |`,
  ];
  const rows = REDIS_CONTENDERS.map((c) => {
    const s = stat(c);
    return `| ${LABELS[c]} | ${k(s.add)} | ${k(s.has)} | ${k(s.present)} | ${us(s.serverAdd)} | ${us(s.serverHas)} | ${us(s.cpuAdd)} | ${us(s.cpuHas)} | ${us(s.cpuPresent)} | ${s.keys.toLocaleString('en-US')} |`;
  });
  return [
    `${result.server} on loopback, one node, no persistence; ioredis; capacity 10^6 at p = 0.01 (k = 7); ${many.reps} repetitions, medians, each in a fresh process, one at a time. "has absent" probes as many keys never added, "has present" the added keys (the filter then holds a fifth of its capacity, 14% of its bits set: an absent key mostly stops at its first bit). Client and server share the 2 cores. "server" is the time INFO commandstats gives the commands the client sent, per key (for a script or a function, everything it calls inside); "server CPU" is the server process's user + system CPU per key added or looked up (INFO cpu), which adds reading the requests and writing the replies: the number that bounds a fleet, since one Redis core serves all of it.`,
    '',
    '| goal | result | numbers |',
    '| --- | --- | --- |',
    ...goals,
    '',
    '| contender | adds/s | has absent/s | has present/s | server per add | server per absent has | server CPU per add | server CPU per absent has | server CPU per present has | keys per run |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
