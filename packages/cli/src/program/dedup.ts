import { textOf } from '../arguments.js';
import { DEDUP_FPR, DEDUP_INITIAL_CAPACITY, runDedup } from '../commands/dedup.js';
import { runRedisDedup } from '../commands/dedup-redis.js';
import { CliError } from '../errors.js';
import { parseKind } from '../filters.js';
import { DEFAULT_WAIT_SECONDS } from '../lock.js';
import { parseRedisTarget } from '../redis-target.js';
import { grouped, parseDuration, parseNumber } from '../units.js';
import type { Registration } from './context.js';
import {
  integer,
  MAX_SAFE,
  REDIS_HELP,
  rate,
  redisConnectionOptions,
  redisFlags,
  seed,
  waitSeconds,
} from './flags.js';

/** dedup's help after its options: what it drops, --fixed, --window, --state and examples. */
const DEDUP_HELP: string = `
A line the filter has seen is dropped: every repeat, and a new line that is a false positive (at most the
--fpr rate). The filter is scalable, starting at --capacity lines (default ${grouped(DEDUP_INITIAL_CAPACITY)}) and
growing with the stream, so the rate holds for any number of lines. --fixed makes a blocked filter of exactly
--capacity lines: faster, but past its capacity the rate rises; that is warned on stderr the moment it happens,
and the run exits with status 3.

--window makes a filter that forgets: a line seen within the window (the last N lines, or the last 24h with
--capacity N lines per 24h) is always dropped; an older line is forgotten gradually, all of them after about
1.45-1.81 windows of lines (2.6-3.5 durations). More lines than --capacity per duration shorten its memory, never
raising the rate. Its memory is constant however long the stream. With --state, the window carries over between runs;
with --redis, one window is shared by every machine.

With --state, a run waits for another run on the same state file, and SIGINT, SIGTERM or SIGHUP stop it cleanly:
the state is saved with every line printed so far, then it exits 128 + the signal's number. Running it again on
the same input prints exactly the lines it had not printed.

Examples:
  zcat urls.gz | bloomkit dedup --capacity 50000000 > unique.txt
  crawl | bloomkit dedup --state seen.bf | fetch
  tail -f events.log | bloomkit dedup --window 1h --capacity 1000000 --state hour.bf
${REDIS_HELP}`;

/** `dedup [FILES…]`: each line once, in order, in constant memory (a file or Redis). */
export const registerDedup: Registration = (program, { exit, writer, interrupts }) => {
  const command = program
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
    .option(
      '--window <n|duration>',
      'forget old lines: keep the last N lines, or every line of the last 500ms, 90s, 15m, 24h, 7d, 2w (with --capacity: the most lines per window)',
      windowFlag,
    )
    .option('--kind <kind>', 'filter kind (default scalable; blocked with --fixed)', parseKind)
    .option('--seed <seed>', 'hash seed for a new filter, or "random"', seed)
    .option('-0, --null', 'NUL-separated records instead of lines')
    .option('-q, --quiet', 'no progress on stderr')
    .option('--stats', 'one summary line on stderr at the end')
    .option(
      '--redis <url>',
      'the filter is in Redis, shared by every machine: redis://host:port/NAME (rediss:// for TLS)',
    );
  redisConnectionOptions(command, 'with --redis: ')
    .option(
      '--wait <seconds>',
      `with --state: how long to wait for another bloomkit writing it (default ${DEFAULT_WAIT_SECONDS})`,
      waitSeconds,
    )
    .addHelpText('after', DEDUP_HELP)
    .action(async (files: string[], o) => {
      const options = {
        files: files.map(textOf),
        state: o.state === undefined ? undefined : textOf(o.state),
        kind: o.kind,
        capacity: o.capacity,
        fixed: o.fixed === true,
        window: o.window,
        fpr: o.fpr,
        seed: o.seed,
        nul: o.null === true,
        quiet: o.quiet === true,
        stats: o.stats === true,
      };
      if (o.redis === undefined) {
        const stray = Object.entries(redisFlags(o)).find(
          ([, value]) => value !== undefined && value !== false,
        );
        if (stray !== undefined) {
          const flag = `--${stray[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
          throw new CliError(`dedup: ${flag} applies only with --redis`);
        }
        return exit(await runDedup(options, writer(o)));
      }
      if (o.state !== undefined) throw new CliError('dedup: give --state (a file) or --redis, not both');
      exit(
        await runRedisDedup(
          await parseRedisTarget(textOf(o.redis), redisFlags(o), process.env, 'filter', interrupts),
          options,
          interrupts,
        ),
      );
    });
};

/** `--window`: a number of lines (an integer ≥ 1) or a duration with its unit. */
function windowFlag(text: string): { lines: number } | { durationMs: number } {
  const lines = parseNumber(text);
  if (Number.isSafeInteger(lines) && lines >= 1) return { lines };
  const durationMs = parseDuration(text);
  if (Number.isSafeInteger(durationMs) && durationMs >= 1) return { durationMs };
  throw new CliError(
    `--window must be a number of lines (an integer in [1, 2^53 - 1]) or a duration such as 90s, 15m, 24h, 7d, got '${text}'`,
  );
}
