import { textOf } from '../arguments.js';
import { FUNCTIONS_ACTIONS, type FunctionsAction, runFunctions } from '../commands/functions.js';
import { runPull, runPush } from '../commands/push-pull.js';
import { CliError } from '../errors.js';
import { parseRedisTarget } from '../redis-target.js';
import type { Registration } from './context.js';
import { integer, REDIS_HELP, redisConnectionOptions, redisFlags, waitFlag } from './flags.js';

/** `push` and `pull`: filter files to and from Redis; `redis functions`: the library for clients in any language. */
export const registerRedisCommands: Registration = (program, { exit, writer, interrupts }) => {
  redisConnectionOptions(
    program
      .command('push')
      .description('copy a filter file into Redis, where every process can open it by name')
      .argument('<file>', 'the filter file')
      .argument('<url>', 'redis://[user@]host[:port]/NAME[?db=N] (rediss:// for TLS); NAME is the filter'),
  )
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
    .addHelpText(
      'after',
      `${REDIS_HELP}\n\nExample:\n  bloomkit push seen.bf redis://127.0.0.1:6379/crawler-seen`,
    )
    .action(async (file: string, url: string, o) =>
      exit(
        await runPush(
          textOf(file),
          await parseRedisTarget(textOf(url), redisFlags(o), process.env, 'filter', interrupts),
          { replace: o.replace === true, shards: o.shards, ttl: o.ttl },
          interrupts,
        ),
      ),
    );

  redisConnectionOptions(
    program
      .command('pull')
      .description('copy a filter from Redis into a file (written atomically)')
      .argument('<url>', 'redis://[user@]host[:port]/NAME[?db=N] (rediss:// for TLS)')
      .argument('<file>', 'the filter file to write (- for stdout)'),
  )
    .addOption(waitFlag())
    .addHelpText('after', REDIS_HELP)
    .action(async (url: string, file: string, o) =>
      exit(
        await runPull(
          await parseRedisTarget(textOf(url), redisFlags(o), process.env, 'filter', interrupts),
          textOf(file),
          writer(o),
        ),
      ),
    );

  const redis = program
    .command('redis')
    .description('bloomkit on a Redis server, for clients in any language');
  redisConnectionOptions(
    redis
      .command('functions')
      .description(
        "load, inspect or delete bloomkit's Redis Functions library (FCALL bk_add, bk_exists... from any client)",
      )
      .argument('<action>', 'install, status or remove')
      .argument('<url>', 'redis://[user@]host[:port][?db=N] (rediss:// for TLS); with --cluster, any node'),
  )
    .addHelpText(
      'after',
      `\ninstall loads the library on the server (every primary of a cluster) unless it holds this version; it never
replaces a newer one. status prints, per server, the version it holds or "none". The user needs FUNCTION in its
ACL to install or remove; clients of the library need only FCALL and FCALL_RO.

Example:\n  bloomkit redis functions install redis://127.0.0.1:6379`,
    )
    .action(async (action: string, url: string, o) => {
      if (!(FUNCTIONS_ACTIONS as readonly string[]).includes(action)) {
        throw new CliError(`redis functions: the action must be install, status or remove, got "${action}"`);
      }
      exit(
        await runFunctions(
          action as FunctionsAction,
          await parseRedisTarget(textOf(url), redisFlags(o), process.env, 'server', interrupts),
          interrupts,
        ),
      );
    });
};
