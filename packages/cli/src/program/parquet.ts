import { textOf } from '../arguments.js';
import { runParquet } from '../commands/parquet.js';
import type { Registration } from './context.js';
import { collect } from './flags.js';

/** `parquet FILE`: a Parquet file's split-block filters, and which row groups may hold values. */
export const registerParquet: Registration = (program, { exit, interrupts }) => {
  program
    .command('parquet')
    .description("ask a Parquet file's Bloom filters which row groups may hold values (or list its filters)")
    .argument('<file>', 'the Parquet file')
    .argument('[values...]', 'values to look up in --column (text, numbers, dates as YYYY-MM-DD, …)')
    .option('--column <name>', 'the column (its path, dots between parts)')
    .option('--from <file>', 'read values from FILE, one per line (- is stdin); repeatable', collect, [])
    .option('-0, --null', 'values are separated by NUL bytes, not newlines')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      [
        '',
        'Each value prints on one line: the value, a tab, the row groups that may hold it (- for none). A row group',
        'without a filter for the column may hold anything. Exit status: 0 some value may be somewhere, 1 none may,',
        '2 an error. Without --column, lists the column chunks that carry a filter.',
        '',
        'Examples:',
        '  bloomkit parquet events.parquet --column url https://example.com/a',
        '  bloomkit parquet events.parquet --column day 2024-05-01 --json',
        '  bloomkit parquet events.parquet',
      ].join('\n'),
    )
    .action(async (file: string, values: string[], o) =>
      exit(
        await runParquet(
          textOf(file),
          {
            column: o.column === undefined ? undefined : textOf(o.column),
            keys: values,
            from: (o.from as string[]).map(textOf),
            nul: o.null === true,
            json: o.json === true,
          },
          interrupts,
        ),
      ),
    );
};
