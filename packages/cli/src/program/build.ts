import { Option } from 'commander';
import { textOf } from '../arguments.js';
import { BUILD_KINDS, runBuild } from '../commands/build.js';
import type { Registration } from './context.js';
import { collect, KEY_HELP, keyed, seed, waitFlag } from './flags.js';

/** `build FILE`: the filter of a fixed set, from all its keys at once. */
export const registerBuild: Registration = (program, { exit, writer }) => {
  program
    .command('build')
    .description('build the filter of a fixed set (a binary fuse filter) from all its keys at once')
    .argument('<file>', 'the filter file to write')
    .argument('[keys...]', 'keys of the set')
    .addOption(
      new Option('--kind <kind>', '8- or 16-bit fingerprints: a rate of 2^-8 (0.39%) or 2^-16')
        .choices([...BUILD_KINDS])
        .default('fuse8'),
    )
    .option('--from <file>', 'read keys from FILE, one per line (- is stdin); repeatable', collect, [])
    .option('-0, --null', 'keys are separated by NUL bytes, not newlines (as find -print0 writes)')
    .option(
      '--seed <seed>',
      'hash seed, an integer in [0, 2^32 - 1], or "random" (see Security in the README)',
      seed,
    )
    .option('-f, --force', 'replace FILE if it exists')
    .addOption(waitFlag())
    .addHelpText(
      'after',
      `${KEY_HELP.split('\n\n')[0]}\n\nThe set is fixed: add refuses the file; build it again with the new keys. Repeated keys count once.\n\nExamples:\n  bloomkit build blocklist.bf --kind fuse8 --from blocklist.txt\n  find / -print0 | bloomkit build paths.bf --kind fuse16 -0`,
    )
    .action(async (file: string, keys: string[], o) => {
      const source = keyed(keys, o);
      exit(
        await runBuild(
          textOf(file),
          { kind: o.kind, seed: o.seed },
          { keys: source.keys, from: source.from, nul: source.nul },
          o.force === true,
          writer(o),
        ),
      );
    });
};
