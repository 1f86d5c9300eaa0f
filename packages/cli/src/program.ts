import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { describeError, EXIT } from './errors.js';
import { Interrupts } from './interrupts.js';
import { DEFAULT_WAIT_SECONDS } from './lock.js';
import type { WriterOptions } from './locked-file.js';
import { registerBuild } from './program/build.js';
import type { CommandContext, Registration } from './program/context.js';
import { registerCreate } from './program/create.js';
import { registerDedup } from './program/dedup.js';
import { registerInspectCommands } from './program/inspect.js';
import { registerKeyCommands } from './program/keys.js';
import { registerParquet } from './program/parquet.js';
import { registerRedisCommands } from './program/redis.js';

/** Every command, in the order `--help` lists them. */
const COMMANDS: readonly Registration[] = [
  registerCreate,
  registerBuild,
  registerKeyCommands,
  registerDedup,
  registerRedisCommands,
  registerInspectCommands,
  registerParquet,
];

/** The `bloomkit` command line; `interrupts` is how its commands see a stop signal. */
export function buildProgram(exit: (code: number) => void, interrupts: Interrupts): Command {
  const writer = (o: { wait?: number }): WriterOptions => ({
    wait: o.wait ?? DEFAULT_WAIT_SECONDS,
    interrupts,
  });
  const program = new Command('bloomkit')
    .description(
      'Bloom filter files: create, add, query, inspect, merge; deduplicate streams of lines in constant memory.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });

  const context: CommandContext = { exit, interrupts, writer };
  for (const register of COMMANDS) register(program, context);

  return program;
}

/** The package's version, as `--version` prints it. */
const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Runs the command line; resolves to the exit status. Errors become one line on stderr and status 2. Stop signals
 * (SIGINT, SIGTERM, SIGHUP) are caught for the whole run: a command commits what it acknowledged and the status is
 * 128 + the signal's number.
 */
export async function run(argv: readonly string[]): Promise<number> {
  let status: number = EXIT.ok;
  const interrupts = new Interrupts().install();
  const program = buildProgram((code) => {
    status = code;
  }, interrupts);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return interrupts.exitStatus ?? status;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.error;
    }
    process.stderr.write(`bloomkit: ${describeError(error)}\n`);
    return interrupts.exitStatus ?? EXIT.error;
  } finally {
    interrupts.dispose();
  }
}
