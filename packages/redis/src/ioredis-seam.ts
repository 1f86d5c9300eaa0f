import type { Command } from 'ioredis';
import { onceArguments, type RedisClient, type Script } from './client.js';

/**
 * Where this package relies on ioredis beyond its documented API, all in this file. A BITFIELD of a batch has
 * thousands of arguments, and ioredis's encoder is what limits its speed (measured when this package was designed:
 * 103 k adds/s through it, 457 k/s pre-encoded), so the fast path hands ioredis a command whose wire bytes are
 * already written. That uses three undocumented parts of ioredis (5 and 6):
 *
 * 1. `Command#toWritable()`, overridden to return the pre-encoded bytes;
 * 2. the `Command` class of the client's own ioredis copy, found by letting `client.call` build a PING against a
 *    stand-in receiver whose `sendCommand` returns it (ioredis's mixins leave no public path to it, for a Cluster in
 *    particular; the application's ioredis may be another copy or version than the one this package resolves);
 * 3. `client.options.keyPrefix`, which ioredis adds to every key of its own commands (a pre-encoded one must too).
 *
 * Each is checked once per client ({@link seamOf}): a `Command` class that builds objects with a `toWritable`
 * method and a `promise`, and options that are an object whose `keyPrefix` is absent or a string. When any check
 * fails the client gets the plain path instead, `client.call(name, key, ...arguments)` of the public API: the
 * same command and the same answers, encoded by ioredis (slower; see the package README). Setting
 * `BLOOMKIT_REDIS_PUBLIC_API=1` in the environment forces the plain path, for tests and for diagnosing a client.
 */
export type Seam =
  | { readonly kind: 'pre-encoded'; readonly Command: typeof Command; readonly keyPrefix: string }
  | { readonly kind: 'public' };

const SEAMS = new WeakMap<object, Seam>();

/** Whether `client` takes pre-encoded commands, decided once per client. */
export function seamOf(client: RedisClient): Seam {
  let seam = SEAMS.get(client);
  if (seam === undefined) {
    seam = process.env.BLOOMKIT_REDIS_PUBLIC_API === '1' ? { kind: 'public' } : detect(client);
    SEAMS.set(client, seam);
  }
  return seam;
}

/** Forces the public path for `client` (tests). */
export function usePublicApi(client: RedisClient): void {
  SEAMS.set(client, { kind: 'public' });
}

function detect(client: RedisClient): Seam {
  try {
    const options = (client as { options?: unknown }).options;
    if (typeof options !== 'object' || options === null) return { kind: 'public' };
    const keyPrefix = (options as { keyPrefix?: unknown }).keyPrefix ?? '';
    if (typeof keyPrefix !== 'string') return { kind: 'public' };
    const catcher = {
      options: { ...options, enableAutoPipelining: false, showFriendlyErrorStack: false },
      sendCommand: (command: Command) => command,
    };
    const probe = (client.call as (...args: unknown[]) => unknown).apply(catcher, ['ping']) as
      | Partial<Command>
      | undefined;
    const Class = probe?.constructor as typeof Command | undefined;
    if (typeof Class !== 'function') return { kind: 'public' };
    const sample = new Class('ping', []) as Partial<Command>;
    if (typeof sample.toWritable !== 'function' || !(sample.promise instanceof Promise))
      return { kind: 'public' };
    sample.promise.catch(() => undefined);
    return { kind: 'pre-encoded', Command: Class, keyPrefix };
  } catch {
    return { kind: 'public' };
  }
}

/**
 * Sends command `name` on `key` whose arguments after the key are `encoded`: RESP bulk strings, as BitfieldBatch
 * writes them (`argCount` of them). Resolves to the reply.
 */
export async function sendEncoded(
  client: RedisClient,
  name: string,
  key: string,
  encoded: Buffer,
  argCount: number,
): Promise<unknown> {
  const seam = seamOf(client);
  if (seam.kind === 'public') return client.call(name, key, ...decodeBulkStrings(encoded, argCount));
  const prefixed = seam.keyPrefix + key;
  const head = `*${argCount + 2}\r\n$${name.length}\r\n${name}\r\n$${Buffer.byteLength(prefixed)}\r\n${prefixed}\r\n`;
  const raw = Buffer.concat([Buffer.from(head), encoded]);
  // Its argument is just the key, so ioredis routes it to the right cluster node, queues and retries it like any
  // command, and parses the reply; only the encoding is bypassed.
  const command = new seam.Command(name.toLowerCase(), [prefixed]);
  command.toWritable = () => raw;
  client.sendCommand(command);
  return command.promise;
}

/**
 * Runs `script` (EVALSHA, then EVAL on NOSCRIPT) on `keys` with the arguments `head` and then `encoded` (RESP bulk
 * strings, `argCount` of them, as BitfieldBatch writes them). Resolves to the reply once Redis has run it, the
 * fallback included.
 */
export async function sendEncodedScript(
  client: RedisClient,
  script: Script,
  keys: readonly string[],
  head: readonly string[],
  encoded: Buffer,
  argCount: number,
): Promise<unknown> {
  // A `once` script's ledger key and id go last (client.ts, onceArguments), the id after the encoded arguments.
  let allKeys = keys;
  let body = encoded;
  let count = argCount;
  if (script.once) {
    const { ledger, id } = onceArguments(keys);
    allKeys = [...keys, ledger];
    body = Buffer.concat([encoded, Buffer.from(`$${id.length}\r\n${id}\r\n`)]);
    count++;
  }
  // A bulk reply comes as a Buffer through a hand-made command: read as text, as client.evalsha would give it.
  const run = (name: string, text: string) =>
    sendEncodedCommand(client, name, [text, String(allKeys.length)], allKeys, head, body, count).then(
      (reply) => (Buffer.isBuffer(reply) ? reply.toString('latin1') : reply),
    );
  try {
    return await run('EVALSHA', script.sha);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await run('EVAL', script.source);
  }
}

/** `name lead... keys... head... encoded...`: the keys take the client's keyPrefix, and route the command. */
function sendEncodedCommand(
  client: RedisClient,
  name: string,
  lead: readonly string[],
  keys: readonly string[],
  head: readonly string[],
  encoded: Buffer,
  argCount: number,
): Promise<unknown> {
  const seam = seamOf(client);
  if (seam.kind === 'public') {
    return client.call(name, ...lead, ...keys, ...head, ...decodeBulkStrings(encoded, argCount));
  }
  const words = [...lead, ...keys.map((key) => seam.keyPrefix + key), ...head];
  const bulk = words.map((word) => `$${Buffer.byteLength(word)}\r\n${word}\r\n`).join('');
  const raw = Buffer.concat([
    Buffer.from(`*${words.length + argCount + 1}\r\n$${name.length}\r\n${name}\r\n${bulk}`),
    encoded,
  ]);
  // Its arguments up to the keys are given, so ioredis routes it to the keys' node; only the encoding is bypassed.
  const command = new seam.Command(name.toLowerCase(), words.slice(0, lead.length + keys.length));
  command.toWritable = () => raw;
  client.sendCommand(command);
  return command.promise;
}

/** The arguments of RESP bulk strings (`$len\r\nbytes\r\n` each), as Buffers for `client.call`. */
function decodeBulkStrings(encoded: Buffer, count: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = encoded.indexOf(13, at); // \r after the length
    const length = Number(encoded.toString('latin1', at + 1, end));
    const start = end + 2;
    out.push(encoded.subarray(start, start + length));
    at = start + length + 2;
  }
  return out;
}
