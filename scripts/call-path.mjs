// Which of the project's source files one call passes through: V8's precise coverage (call counts), taken around
// the call alone, after a warm-up call has loaded every module. Run after `pnpm build`:
//
//   node scripts/call-path.mjs deserialize   # StandardBloomFilter.deserialize(bytes)
//   node scripts/call-path.mjs merge         # bloomkit merge OUT A B, in process
//
// Prints the count and the built files (packages/*/dist) whose named functions ran.
import { mkdtempSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../packages/', import.meta.url);
const scenarios = {
  async deserialize() {
    const { StandardBloomFilter } = await import(new URL('standard/dist/index.js', root).href);
    const filter = StandardBloomFilter.create(1000, 0.01);
    filter.add('x');
    const bytes = filter.serialize();
    return () => StandardBloomFilter.deserialize(bytes);
  },
  async merge() {
    const { run } = await import(new URL('cli/dist/program.js', root).href);
    const dir = mkdtempSync(join(tmpdir(), 'call-path-'));
    const [a, b, out] = ['a.bf', 'b.bf', 'out.bf'].map((name) => join(dir, name));
    for (const file of [a, b]) await run(['create', file, '-n', '1000', '-p', '0.01']);
    await run(['add', '-q', a, 'x']);
    await run(['add', '-q', b, 'y']);
    return () => run(['merge', out, a, b]);
  },
};

const scenario = scenarios[process.argv[2]];
if (scenario === undefined) {
  console.error(`usage: node scripts/call-path.mjs ${Object.keys(scenarios).join('|')}`);
  process.exit(2);
}
const call = await scenario();
await call(); // warm-up: modules loaded, first-call paths taken
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await call();
const { result } = await session.post('Profiler.takePreciseCoverage');
const files = result
  .filter((script) => script.url.includes('/packages/') && !script.url.includes('/node_modules/'))
  .filter((script) => script.functions.some((f) => f.functionName !== '' && f.ranges[0].count > 0))
  .map((script) => script.url.replace(/.*\/packages\//, ''))
  .sort();
console.log(`${files.length} files\n${files.join('\n')}`);
