import { textOf } from '../arguments.js';
import { runCalc, runCalcTable } from '../commands/calc.js';
import { runCombine } from '../commands/combine.js';
import { runInfo } from '../commands/info.js';
import type { Registration } from './context.js';
import { integer, MAX_SAFE, rate, waitOption } from './flags.js';

/** `info`, `merge`, `intersect` and `calc`: reading, combining and sizing filters. */
export const registerInspectCommands: Registration = (program, { exit, writer, interrupts }) => {
  program
    .command('info')
    .description("print a filter file's kind, shape, fill, estimated count, current rate and checksum status")
    .argument('<file>', 'the filter file')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      '\nExit status 2 when the checksum does not match (everything else is still printed).',
    )
    .action(async (file: string, o) => exit(await runInfo(textOf(file), o.json === true, interrupts)));

  for (const [name, operation, what] of [
    ['merge', 'union', 'union'],
    ['intersect', 'intersect', 'intersection'],
  ] as const) {
    waitOption(
      program
        .command(name)
        .description(`write the ${what} of filter files (same kind, size, hashes and seed)`)
        .argument('<out>', 'the filter file to write (may be one of the inputs; - for stdout)')
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
};
