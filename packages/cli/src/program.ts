import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { textOf } from './arguments.js';
import { runCalc, runCalcTable } from './commands/calc.js';
import { runCombine } from './commands/combine.js';
import { runCreate } from './commands/create.js';
import { DEDUP_FPR, DEDUP_INITIAL_CAPACITY, runDedup } from './commands/dedup.js';
import { runRedisDedup } from './commands/dedup-redis.js';
import { runInfo } from './commands/info.js';
import { ADD, DELETE, HAS, type KeyedOptions, runKeyed } from './commands/keyed.js';
import { runPull, runPush } from './commands/push-pull.js';
import { CliError, describeError, EXIT } from './errors.js';
import { kindChoices, parseKind } from './filters.js';
import { Interrupts } from './interrupts.js';
import { DEFAULT_WAIT_SECONDS } from './lock.js';
import type { WriterOptions } from './locked-file.js';
import { parseRedisTarget } from './redis-target.js';
import { grouped, parseNumber } from './units.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** An integer option in [min, max]; the error names the option and the range. */
function integer(flag: string, min: number, max: number, maxText = String(max)) {
  return (text: string): number => {
    const value = parseNumber(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new CliError(`${flag} must be an integer in [${min}, ${maxText}], got '${text}'`);
    }
    return value;
  };
}

function rate(flag: string) {
  return (text: string): number => {
    const value = parseNumber(text);
    if (!(value > 0 && value < 1)) throw new CliError(`${flag} must be a number in (0, 1), got '${text}'`);
    return value;
  };
}

function seed(text: string): number | 'random' {
  if (text === 'random') return 'random';
  return integer('--seed', 0, 0xffffffff, '2^32 - 1')(text);
}

function counterBits(text: string): number {
  if (text !== '4' && text !== '8' && text !== '16') {
    throw new CliError(`--counter-bits must be 4, 8 or 16, got '${text}'`);
  }
  return Number(text);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, textOf(value)];
}

function waitSeconds(text: string): number {
  const value = parseNumber(text);
  if (!(value >= 0 && value <= 86_400)) {
    throw new CliError(`--wait must be a number of seconds in [0, 86400], got '${text}'`);
  }
  return value;
}

/** `--wait`, taken by every command that writes a filter file. */
function waitFlag(): Option {
  return new Option(
    '--wait <seconds>',
    `how long to wait for another bloomkit writing the same file (default ${DEFAULT_WAIT_SECONDS})`,
  ).argParser(waitSeconds);
}

function waitOption(command: Command): Command {
  return command.addOption(waitFlag());
}

/** The options every key-reading command takes. */
function keyOptions(command: Command): Command {
  return command
    .option('--from <file>', 'read keys from FILE, one per line (- is stdin); repeatable', collect, [])
    .option('-0, --null', 'keys are separated by NUL bytes, not newlines (as find -print0 writes)')
    .option('-v, --verbose', "print each key with the filter's answer, tab-separated")
    .option('-q, --quiet', 'no progress on stderr');
}

function keyed(keys: string[], options: Record<string, unknown>): KeyedOptions {
  return {
    keys,
    from: options.from as string[],
    nul: options.null === true,
    verbose: options.verbose === true,
    quiet: options.quiet === true,
  };
}

const KEY_HELP = `
Keys are bytes: a line is hashed as the bytes it has (a CRLF ending is stripped), so a line that is not valid UTF-8
still has one identity, and a key typed here hashes as the same string does in the library. With no KEYS and no
--from, keys are read from stdin.

Exit status, as grep's: 0 when every answer is yes, 1 when some answer is no, 2 on error.`;

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

  program
    .command('create')
    .description('create an empty filter file, sized by capacity and rate or by bits and hashes')
    .argument('<file>', 'the filter file to write')
    .option(
      '-n, --capacity <n>',
      'keys the filter is sized for',
      integer('--capacity', 1, MAX_SAFE, '2^53 - 1'),
    )
    .option('-p, --fpr <p>', 'target false-positive rate at capacity, in (0, 1)', rate('--fpr'))
    .option(
      '-m, --bits <m>',
      'explicit size in bits (counters), instead of --capacity/--fpr',
      integer('--bits', 1, 2 ** 48, '2^48'),
    )
    .option('-k, --hashes <k>', 'explicit number of hashes, with --bits', integer('--hashes', 1, 64))
    .addOption(
      new Option('--kind <kind>', `one of ${kindChoices()}`).default('standard').argParser(parseKind),
    )
    .option(
      '--seed <seed>',
      'hash seed, an integer in [0, 2^32 - 1], or "random" (see Security in the README)',
      seed,
    )
    .option(
      '--counter-bits <bits>',
      'counter width of a counting filter: 4, 8 or 16 (default 4)',
      counterBits,
    )
    .option('-f, --force', 'replace FILE if it exists')
    .addOption(waitFlag())
    .addHelpText(
      'after',
      '\nExample:\n  bloomkit create seen.bf --capacity 10000000 --fpr 0.001 --kind blocked',
    )
    .action(async (file: string, o) => {
      exit(
        await runCreate(
          textOf(file),
          {
            kind: o.kind,
            capacity: o.capacity,
            fpr: o.fpr,
            bits: o.bits,
            hashes: o.hashes,
            seed: o.seed,
            counterBits: o.counterBits,
          },
          o.force === true,
          writer(o),
        ),
      );
    });

  waitOption(
    keyOptions(
      program
        .command('add')
        .description('add keys to a filter file (test-and-add: "yes" means the key was present already)')
        .argument('<file>', 'the filter file, replaced atomically')
        .argument('[keys...]', 'keys to add'),
    ),
  )
    .addHelpText('after', `${KEY_HELP}\nFor add, "no" means the key was new (it is added).`)
    .action(async (file: string, keys: string[], o) =>
      exit(await runKeyed(textOf(file), ADD, keyed(keys, o), writer(o))),
    );

  keyOptions(
    program
      .command('has')
      .description('ask whether keys may be in a filter file')
      .argument('<file>', 'the filter file')
      .argument('[keys...]', 'keys to look up'),
  )
    .addHelpText(
      'after',
      `${KEY_HELP}\n"present" means maybe (a false positive at the filter's rate); "absent" is certain.`,
    )
    .action(async (file: string, keys: string[], o) =>
      exit(await runKeyed(textOf(file), HAS, keyed(keys, o), writer(o))),
    );

  waitOption(
    keyOptions(
      program
        .command('delete')
        .description('delete keys from a counting filter file')
        .argument('<file>', 'the counting filter file, replaced atomically')
        .argument('[keys...]', 'keys to delete'),
    ),
  )
    .addHelpText(
      'after',
      `${KEY_HELP}\nDelete only keys you added: deleting a false positive lowers other keys' counters.`,
    )
    .action(async (file: string, keys: string[], o) =>
      exit(await runKeyed(textOf(file), DELETE, keyed(keys, o), writer(o))),
    );

  program
    .command('dedup')
    .description('print each line of the input the first time it appears, in order, in constant memory')
    .argument('[files...]', 'input files (default stdin)')
    .option('--state <file>', 'filter file loaded before and saved after (atomically), so runs resume')
    .option(
      '-n, --capacity <n>',
      `expected distinct lines (default ${grouped(DEDUP_INITIAL_CAPACITY)}); the filter grows past it unless --fixed`,
      integer('--capacity', 1, MAX_SAFE, '2^53 - 1'),
    )
    .option(
      '--fixed',
      'a filter of fixed size (blocked, the fastest) instead of a growing one; past --capacity its rate rises: warned on stderr, exit status 3',
    )
    .option(
      '-p, --fpr <p>',
      `false-positive rate: the share of new lines wrongly dropped (default ${DEDUP_FPR})`,
      rate('--fpr'),
    )
    .option('--kind <kind>', 'filter kind (default scalable; blocked with --fixed)', parseKind)
    .option('--seed <seed>', 'hash seed for a new filter, or "random"', seed)
    .option('-0, --null', 'NUL-separated records instead of lines')
    .option('-q, --quiet', 'no progress on stderr')
    .option('--stats', 'one summary line on stderr at the end')
    .option(
      '--redis <url>',
      'the filter is in Redis, shared by every machine: redis://host:port/NAME (rediss:// for TLS)',
    )
    .option('--cluster', 'with --redis: the URL is a node of a Redis Cluster')
    .option(
      '--wait <seconds>',
      `with --state: how long to wait for another bloomkit writing it (default ${DEFAULT_WAIT_SECONDS})`,
      waitSeconds,
    )
    .addHelpText(
      'after',
      `
A line the filter has seen is dropped: every repeat, and a new line that is a false positive (at most the
--fpr rate). The filter is scalable, starting at --capacity lines (default ${grouped(DEDUP_INITIAL_CAPACITY)}) and
growing with the stream, so the rate holds for any number of lines. --fixed makes a blocked filter of exactly
--capacity lines: faster, but past its capacity the rate rises; that is warned on stderr the moment it happens,
and the run exits with status 3.

With --state, a run waits for another run on the same state file, and SIGINT, SIGTERM or SIGHUP stop it cleanly:
the state is saved with every line printed so far, then it exits 128 + the signal's number. Running it again on
the same input prints exactly the lines it had not printed.

Examples:
  zcat urls.gz | bloomkit dedup --capacity 50000000 > unique.txt
  crawl | bloomkit dedup --state seen.bf | fetch`,
    )
    .action(async (files: string[], o) => {
      const options = {
        files: files.map(textOf),
        state: o.state === undefined ? undefined : textOf(o.state),
        kind: o.kind,
        capacity: o.capacity,
        fixed: o.fixed === true,
        fpr: o.fpr,
        seed: o.seed,
        nul: o.null === true,
        quiet: o.quiet === true,
        stats: o.stats === true,
      };
      if (o.redis === undefined) return exit(await runDedup(options, writer(o)));
      if (o.state !== undefined) throw new CliError('dedup: give --state (a file) or --redis, not both');
      exit(await runRedisDedup(parseRedisTarget(o.redis, o.cluster === true), options, interrupts));
    });

  program
    .command('push')
    .description('copy a filter file into Redis, where every process can open it by name')
    .argument('<file>', 'the filter file')
    .argument('<url>', 'redis://[user:password@]host[:port]/NAME (rediss:// for TLS); NAME is the filter')
    .option('--cluster', 'the URL is a node of a Redis Cluster')
    .option('--replace', 'replace a filter of that name')
    .option(
      '--shards <n>',
      'blocked filters: spread over at most N Redis keys',
      integer('--shards', 1, 2 ** 20, '2^20'),
    )
    .option(
      '--ttl <seconds>',
      'let Redis delete the filter after this many seconds',
      integer('--ttl', 1, 2 ** 31 - 1, '2^31 - 1'),
    )
    .addHelpText('after', '\nExample:\n  bloomkit push seen.bf redis://127.0.0.1:6379/crawler-seen')
    .action(async (file: string, url: string, o) =>
      exit(
        await runPush(textOf(file), parseRedisTarget(url, o.cluster === true), {
          replace: o.replace === true,
          shards: o.shards,
          ttl: o.ttl,
        }),
      ),
    );

  program
    .command('pull')
    .description('copy a filter from Redis into a file (written atomically)')
    .argument('<url>', 'redis://[user:password@]host[:port]/NAME')
    .argument('<file>', 'the filter file to write')
    .option('--cluster', 'the URL is a node of a Redis Cluster')
    .addOption(waitFlag())
    .action(async (url: string, file: string, o) =>
      exit(await runPull(parseRedisTarget(url, o.cluster === true), textOf(file), writer(o))),
    );

  program
    .command('info')
    .description("print a filter file's kind, shape, fill, estimated count, current rate and checksum status")
    .argument('<file>', 'the filter file')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      '\nExit status 2 when the checksum does not match (everything else is still printed).',
    )
    .action((file: string, o) => exit(runInfo(textOf(file), o.json === true)));

  for (const [name, operation, what] of [
    ['merge', 'union', 'union'],
    ['intersect', 'intersect', 'intersection'],
  ] as const) {
    waitOption(
      program
        .command(name)
        .description(`write the ${what} of filter files (same kind, size, hashes and seed)`)
        .argument('<out>', 'the filter file to write (may be one of the inputs)')
        .argument('<inputs...>', `filter files to ${name}`),
    ).action(async (out: string, inputs: string[], o) =>
      exit(await runCombine(operation, textOf(out), inputs.map(textOf), writer(o))),
    );
  }

  program
    .command('calc')
    .description('the sizing calculator: any two of n, p, m, k give the rest, for each layout')
    .option('-n, --capacity <n>', 'keys', integer('--capacity', 1, MAX_SAFE, '2^53 - 1'))
    .option('-p, --fpr <p>', 'false-positive rate, in (0, 1)', rate('--fpr'))
    .option('-m, --bits <m>', 'bits', integer('--bits', 1, 2 ** 48, '2^48'))
    .option('-k, --hashes <k>', 'hashes', integer('--hashes', 1, 64))
    .option('--table', 'the classic table of false-positive rates by m/n and k')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      '\nExamples:\n  bloomkit calc -n 1e6 -p 0.01\n  bloomkit calc -m 2^33 -p 1e-4\n  bloomkit calc --table',
    )
    .action((o) =>
      exit(
        o.table === true
          ? runCalcTable(o.json === true)
          : runCalc({ n: o.capacity, p: o.fpr, m: o.bits, k: o.hashes }, o.json === true),
      ),
    );

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
