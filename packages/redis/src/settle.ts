import { FilterNotFoundError, RedisFilterError } from './errors.js';

/**
 * Waits for every command of a batch. When some failed (a node down, a connection lost), the rest still completed:
 * the error names each failed destination and keeps the first cause, and `onPartial` sees the results that did
 * arrive (to count what was added) before the error is thrown.
 */
export async function settleAll<T>(
  where: string,
  destinations: readonly string[],
  commands: readonly Promise<T>[],
  onPartial?: (results: readonly (T | undefined)[]) => Promise<void> | void,
): Promise<T[]> {
  const settled = await Promise.allSettled(commands);
  const failed = settled.flatMap((s, i) =>
    s.status === 'rejected' ? [{ i, reason: s.reason as unknown }] : [],
  );
  if (failed.length === 0) return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  if (onPartial !== undefined) {
    await onPartial(settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined)));
  }
  const gone = failed.find((f) => f.reason instanceof FilterNotFoundError);
  if (gone !== undefined) throw gone.reason;
  const first = failed[0]!;
  const message = first.reason instanceof Error ? first.reason.message : String(first.reason);
  throw new RedisFilterError(
    `${where}: ${failed.length} of ${commands.length} Redis commands failed (${failed
      .slice(0, 3)
      .map((f) => destinations[f.i])
      .join(
        ', ',
      )}${failed.length > 3 ? ', …' : ''}): ${message}. Keys sent to the others were processed; keys sent to the failed ones were not reported as added.`,
    { cause: first.reason },
  );
}
