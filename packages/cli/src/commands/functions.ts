import type { FunctionsStatus } from '@bloomkit/redis';
import { CliError, EXIT } from '../errors.js';
import type { Interrupts } from '../interrupts.js';
import { type RedisTarget, withRedis } from '../redis-target.js';

/** What `bloomkit redis functions ACTION URL` does. */
export type FunctionsAction = 'install' | 'status' | 'remove';

export const FUNCTIONS_ACTIONS: readonly FunctionsAction[] = ['install', 'status', 'remove'];

/**
 * `redis functions install|status|remove URL`: loads bloomkit's Redis Functions library on the server (every primary
 * of a cluster with --cluster), says which version each holds, or deletes it. Prints one line per server:
 * `host:port<TAB>bloomkit functions version N` or `host:port<TAB>none`. install never replaces a newer version.
 */
export async function runFunctions(
  action: FunctionsAction,
  target: RedisTarget,
  interrupts: Interrupts,
): Promise<number> {
  const doing = { install: 'installing', status: 'reading the status of', remove: 'removing' }[action];
  return withRedis(target, `${doing} the functions library`, interrupts, async (client, Filter) => {
    let status: FunctionsStatus[];
    try {
      status =
        action === 'install'
          ? await Filter.installFunctions(client)
          : action === 'remove'
            ? await Filter.removeFunctions(client)
            : await Filter.functionsStatus(client);
    } catch (error) {
      if (error instanceof Error && /newer than this package's/.test(error.message)) {
        throw new CliError(error.message.replace(/^installFunctions: /, ''));
      }
      throw error;
    }
    const lines = [...status]
      .sort((a, b) => a.node.localeCompare(b.node))
      .map(({ node, version, modified }) => `${node}\t${describeLibrary(version, modified)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  });
}

/** What a server holds, in the status line's words. */
function describeLibrary(version: number | null, modified: boolean): string {
  if (version === null) return 'none';
  if (version === 0) return 'a library named bloomkit that answers no version (install replaces it)';
  return `bloomkit functions version ${version}${modified ? ', edited by hand (install replaces it)' : ''}`;
}
