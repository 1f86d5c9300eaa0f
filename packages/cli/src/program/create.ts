import { Option } from 'commander';
import { textOf } from '../arguments.js';
import { runCreate } from '../commands/create.js';
import { CliError } from '../errors.js';
import { kindChoices, parseKind } from '../filters.js';
import { parseDuration } from '../units.js';
import type { Registration } from './context.js';
import { counterBits, integer, MAX_SAFE, rate, seed, waitFlag } from './flags.js';

/** `create FILE`: an empty filter file. */
export const registerCreate: Registration = (program, { exit, writer }) => {
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
    .option(
      '--duration <duration>',
      'a time window (--kind window): keep every key of the last DURATION (90s, 15m, 24h, 7d), with at most --capacity keys arriving per DURATION',
      durationFlag,
    )
    .option('-f, --force', 'replace FILE if it exists')
    .addOption(waitFlag())
    .addHelpText(
      'after',
      '\nExamples:\n  bloomkit create seen.bf --capacity 10000000 --fpr 0.001 --kind blocked\n  bloomkit create day.bf --kind window --capacity 1000000 --fpr 0.001 --duration 24h',
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
            duration: o.duration,
          },
          o.force === true,
          writer(o),
        ),
      );
    });
};

/** `--duration`: a time with its unit, at least 1 ms. */
function durationFlag(text: string): number {
  const ms = parseDuration(text);
  if (Number.isSafeInteger(ms) && ms >= 1) return ms;
  throw new CliError(
    `--duration must be a time such as 500ms, 90s, 15m, 24h or 7d (at least 1 ms), got '${text}'`,
  );
}
