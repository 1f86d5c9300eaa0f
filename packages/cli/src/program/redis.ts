import { textOf } from '../arguments.js';
import { runPull, runPush } from '../commands/push-pull.js';
import { parseRedisTarget } from '../redis-target.js';
import type { Registration } from './context.js';
import { integer, REDIS_HELP, redisConnectionOptions, redisFlags, waitFlag } from './flags.js';

/** `push` and `pull`: filter files to and from Redis. */
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
          parseRedisTarget(textOf(url), redisFlags(o)),
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
      .argument('<file>', 'the filter file to write'),
  )
    .addOption(waitFlag())
    .addHelpText('after', REDIS_HELP)
    .action(async (url: string, file: string, o) =>
      exit(await runPull(parseRedisTarget(textOf(url), redisFlags(o)), textOf(file), writer(o))),
    );
};
