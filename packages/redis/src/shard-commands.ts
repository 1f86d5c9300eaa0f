/** Keys per command: small enough that encoding the next command overlaps with Redis running this one. */
export const CHUNK_KEYS = 256;

/** Each of a batch's keys' `k` Redis bit offsets (relative to its string), `offsets[i * k + h]`, and its string. */
export interface Located {
  readonly offsets: Float64Array;
  readonly shards: Uint32Array;
  readonly k: number;
}

/** A command sent: the string it went to, the batch indexes of its keys in order, and its reply. */
export interface SentCommand<R> {
  readonly key: string;
  readonly indexes: number[];
  readonly reply: Promise<R>;
}

/**
 * Splits a batch's keys into commands: the keys of `indexes` grouped by string (`keyOf` names it), at most
 * {@link CHUNK_KEYS} keys a command, each command sent as soon as it is full. `start` makes a string's command,
 * `offset` adds one Redis bit offset to it (bits `from` to `to` of each key), `key` adds what else a key needs,
 * `send` sends it. Returns the commands in the order they were sent.
 */
export function commandsOf<C, R>(
  located: Located,
  keyOf: (shard: number) => string,
  indexes: readonly number[],
  from: number,
  to: number,
  start: (shard: number) => C,
  offset: (command: C, offset: number) => void,
  send: (command: C, shard: number) => Promise<R>,
  key?: (command: C, index: number) => void,
): SentCommand<R>[] {
  const { offsets, shards, k } = located;
  const open = new Map<number, { indexes: number[]; command: C }>();
  const sent: SentCommand<R>[] = [];
  const flush = (shard: number, group: { indexes: number[]; command: C }) => {
    sent.push({ key: keyOf(shard), indexes: group.indexes, reply: send(group.command, shard) });
    open.delete(shard);
  };
  for (const i of indexes) {
    const shard = shards[i]!;
    let group = open.get(shard);
    if (group === undefined) {
      group = { indexes: [], command: start(shard) };
      open.set(shard, group);
    }
    group.indexes.push(i);
    key?.(group.command, i);
    for (let h = from; h < to; h++) offset(group.command, offsets[i * k + h]!);
    if (group.indexes.length === CHUNK_KEYS) flush(shard, group);
  }
  for (const [shard, group] of [...open]) flush(shard, group);
  return sent;
}
