// `vitest ARGS`, with no colour codes when its output is not a terminal: with CI=true vitest colours its log
// anyway, and a CI log or a file then fills with escape codes. FORCE_COLOR, when set, still wins.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const pkg = require.resolve('vitest/package.json');
const bin = join(dirname(pkg), require(pkg).bin.vitest);
const env = { ...process.env };
if (!process.stdout.isTTY && env.FORCE_COLOR === undefined) env.NO_COLOR = '1';
const run = spawnSync(process.execPath, [bin, ...process.argv.slice(2)], { stdio: 'inherit', env });
if (run.error) throw run.error;
process.exit(run.status ?? 1);
