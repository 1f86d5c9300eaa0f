import { textOf } from '../arguments.js';
import { ADD, ADD_TESTED, DELETE, EXCEPT, HAS, runKeyed, UNEXCEPT } from '../commands/keyed.js';
import type { Registration } from './context.js';
import { KEY_HELP, keyed, keyOptions, waitOption } from './flags.js';

/** `add`, `has` and `delete`: keys against a filter file. */
export const registerKeyCommands: Registration = (program, { exit, writer }) => {
  waitOption(
    keyOptions(
      program
        .command('add')
        .description('add keys to a filter file (test-and-add: "yes" means the key was present already)')
        .argument('<file>', 'the filter file, replaced atomically')
        .argument('[keys...]', 'keys to add'),
    ),
  )
    .option(
      '--test',
      'exit as has would have answered before the add: 1 when some key was new, 0 when every key was present',
    )
    .addHelpText(
      'after',
      `${KEY_HELP}\nFor add, "no" means the key was new (it is added). add exits 0 when it succeeded, new keys or not; with --test, 1 when some key was new.`,
    )
    .action(async (file: string, keys: string[], o) =>
      exit(await runKeyed(textOf(file), o.test ? ADD_TESTED : ADD, keyed(keys, o), writer(o))),
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
        .description(
          'delete keys from a counting or cuckoo filter file (a cuckoo filter removes one copy a key)',
        )
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

  waitOption(
    keyOptions(
      program
        .command('except')
        .description(
          'record known false positives: keys the filter flags that are known absent, answered absent from now on',
        )
        .argument('<file>', 'the filter file, replaced atomically (given an exception list if it has none)')
        .argument('[keys...]', 'keys confirmed absent'),
    ),
  )
    .option('--remove', 'remove the keys from the exception list instead')
    .addHelpText(
      'after',
      `${KEY_HELP}\n"excepted" means has now answers absent for the key; "absent" means the filter answered absent already (nothing recorded).\nWith --remove: "removed", or "not-listed". A key added later (bloomkit add) leaves the list by itself.`,
    )
    .action(async (file: string, keys: string[], o) =>
      exit(await runKeyed(textOf(file), o.remove ? UNEXCEPT : EXCEPT, keyed(keys, o), writer(o))),
    );
};
