// The Redis tests (packages/redis, the CLI's push/pull) start real redis-server processes. `pnpm test` runs this
// first: when redis-server or redis-cli is missing it installs the Debian package (as root, or through sudo
// without a password), so a fresh Debian or Ubuntu machine needs nothing but the README's test command.
import { spawnSync } from 'node:child_process';

const works = (command, args = ['--version']) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

if (works('redis-server') && works('redis-cli')) process.exit(0);

const fail = (why) => {
  process.stderr.write(
    `redis-server is needed by the tests and ${why}. Install Redis 6.2 or later (redis-server and redis-cli on the PATH) and run the tests again.\n`,
  );
  process.exit(1);
};
if (!works('apt-get')) fail('this machine has no apt-get');
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const prefix = root
  ? []
  : works('sudo', ['-n', 'true'])
    ? ['sudo', '-n']
    : fail('installing it needs root (or sudo without a password)');
const run = (args) => {
  process.stderr.write(`$ ${[...prefix, ...args].join(' ')}\n`);
  const [command, ...rest] = [...prefix, ...args];
  const result = spawnSync(command, rest, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) fail(`\`${args.join(' ')}\` failed`);
};
process.stderr.write('redis-server is missing: installing the Debian package for the Redis tests\n');
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'redis-server']);
if (!works('redis-server')) fail('it is still not on the PATH after apt-get install');
