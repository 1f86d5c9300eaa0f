// Some tests run real programs: redis-server and redis-cli (packages/redis, the CLI's push and pull), PHP with
// php-redis and Python 3 with redis-py (clients in other languages using the Redis functions), openssl (a private
// certificate authority for the CLI's TLS test) and headless Chromium (loading the packages in a browser without a
// bundler). `pnpm test` runs this first. What is missing is installed from the Debian packages (as root,
// or through sudo without a password) only where that is clearly wanted: with BLOOMKIT_INSTALL_TEST_TOOLS=1 (the
// README's test command sets it) or on CI (CI=true). Otherwise it prints the one command to run and stops, so
// `pnpm test` never changes a developer's machine unasked.
import { spawnSync } from 'node:child_process';

const works = (command, args = ['--version']) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** Debian package → the commands the tests run from it (and the arguments that show a command works). */
const TOOLS = [
  { pkg: 'redis-server', commands: ['redis-server', 'redis-cli'] },
  { pkg: 'php-cli', commands: ['php'] },
  { pkg: 'php-redis', commands: ['php'], args: ['-r', 'exit(class_exists("Redis") ? 0 : 1);'] },
  // Debian's Python, the one python3-redis installs for (a python3 earlier on the PATH may be another).
  { pkg: 'python3-redis', commands: ['/usr/bin/python3'], args: ['-c', 'import redis'] },
  { pkg: 'openssl', commands: ['openssl'], args: ['version'] },
  { pkg: 'chromium-headless-shell', commands: ['chromium-headless-shell'] },
];
const present = (tool) => tool.commands.every((command) => works(command, tool.args));

const missing = TOOLS.filter((tool) => !present(tool));
if (missing.length === 0) process.exit(0);

const names = missing.map((tool) => tool.pkg).join(' ');
const fail = (why) => {
  process.stderr.write(
    `The tests need ${names} and ${why}. Install them (Redis 7.0 or later, for Redis Functions; Chromium's headless shell) so that ${missing.flatMap((t) => t.commands).join(', ')} are on the PATH, and run the tests again.\n`,
  );
  process.exit(1);
};
const allowed = process.env.BLOOMKIT_INSTALL_TEST_TOOLS === '1' || process.env.CI === 'true';
if (!allowed) {
  const them = missing.length === 1 ? 'it' : 'them';
  process.stderr.write(
    `The tests need ${names}, not installed here. Install ${them} (Debian, Ubuntu):\n\n  sudo apt-get install -y --no-install-recommends ${names}\n\nor let the tests install ${them}: BLOOMKIT_INSTALL_TEST_TOOLS=1 pnpm test\n`,
  );
  process.exit(1);
}
if (!works('apt-get')) fail('this machine has no apt-get');
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const prefix = root
  ? []
  : works('sudo', ['-n', 'true'])
    ? ['sudo', '-n']
    : fail('installing them needs root (or sudo without a password)');
const run = (args) => {
  process.stderr.write(`$ ${[...prefix, ...args].join(' ')}\n`);
  const [command, ...rest] = [...prefix, ...args];
  const result = spawnSync(command, rest, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) fail(`\`${args.join(' ')}\` failed`);
};
process.stderr.write(`installing what the tests run: ${names}\n`);
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing.map((tool) => tool.pkg)]);
for (const tool of missing) {
  if (!present(tool)) fail(`${tool.commands.join(', ')} still missing after apt-get install`);
}
