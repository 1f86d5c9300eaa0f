import type { RedisClient } from './client.js';
import { runScript, script } from './client.js';
import { filterGone } from './errors.js';
import { REMOVE_STRAY } from './lua/remove-stray.js';

/**
 * Each storage string written by plain BITFIELD commands (the bits of standard, partitioned, blocked and counting
 * filters) ends with a 4-byte guard after its payload: the filter's generation, big-endian, which is how
 * `BITFIELD … GET u32` reads it. create and import write it with the storage; nothing else ever writes there.
 *
 * An add is one BITFIELD whose first subcommand reads the guard: it comes back as the generation while the string
 * is the filter's, and as 0 when the string was gone (expired, dropped) and this very BITFIELD created it anew. So
 * an add to a filter that is gone is detected in the same atomic command, is never reported as added, and the
 * string it created is deleted at once (by a script that deletes it only if its guard is still not the
 * generation). Lookups read the guard first and create nothing. Scalable filters write only from scripts, which
 * check the meta hash's generation instead.
 */

/** Bytes of the guard after the payload. */
export const GUARD_BYTES = 4;

/** The guard's bytes for `generation`. */
export function guardBytes(generation: number): Buffer {
  const bytes = Buffer.alloc(GUARD_BYTES);
  bytes.writeUInt32BE(generation, 0);
  return bytes;
}

/** The BITFIELD subcommand that reads the guard of a string whose payload is `payloadBytes` long. */
export function guardRead(payloadBytes: number): string[] {
  return ['GET', 'u32', String(payloadBytes * 8)];
}

const REMOVE_STRAY_SCRIPT = script(REMOVE_STRAY);

/**
 * Checks the guard an add's BITFIELD read back. When it is not the generation, the filter is gone: the string the
 * command may have created is removed, and a FilterNotFoundError is thrown.
 */
export async function checkGuard(
  where: string,
  name: string,
  client: RedisClient,
  key: string,
  payloadBytes: number,
  generation: number,
  guard: number,
): Promise<void> {
  if (guard === generation) return;
  await runScript(client, REMOVE_STRAY_SCRIPT, [key], [payloadBytes * 8, generation]).catch(() => undefined);
  throw filterGone(where, name);
}
