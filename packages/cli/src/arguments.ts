import { readFileSync } from 'node:fs';
import type { Key } from '@bloomkit/core';
import { CliError } from './errors.js';

/**
 * Command-line arguments as the bytes the user typed. Node decodes `argv` as UTF-8 and turns every invalid
 * sequence into U+FFFD, so `\xff` and `\xfe` would arrive as the same key, while the same bytes read from `--from`
 * or stdin are hashed as they are. On Linux the exact bytes are in `/proc/self/cmdline`; an argument that is not
 * valid UTF-8 is replaced, before parsing, by a token (NUL, which no argument can contain, then its index) that
 * {@link keyOf} turns back into its bytes. Where the bytes cannot be had, a key holding U+FFFD is refused with a
 * pointer to `--from`, rather than silently hashed as other bytes than the user typed.
 */

const TOKEN = '\u0000arg:';
/**
 * UTF-8 decoded as Node decodes argv: invalid sequences become U+FFFD and a leading byte order mark is kept (a
 * decoder that dropped it would see every argument that starts with one differ from Node's, and stop trusting the
 * command line for all of them).
 */
const AS_NODE = new TextDecoder('utf-8', { ignoreBOM: true });
const raw = new Map<string, Uint8Array>();
let exact = false;

/**
 * Reads this process's command line and returns `args` (the user's arguments, `process.argv.slice(2)`) with each
 * argument that is not valid UTF-8 replaced by its token. Elsewhere than Linux, returns `args` unchanged.
 */
export function captureArguments(args: readonly string[]): string[] {
  const bytes = commandLine();
  if (bytes === undefined || bytes.length < args.length) return [...args];
  const mine = bytes.slice(bytes.length - args.length);
  // The last N entries of the kernel's command line are the user's N arguments (Node's options come before the
  // script); check that they decode to what Node gave before trusting the alignment.
  if (mine.some((entry, i) => AS_NODE.decode(entry) !== args[i])) return [...args];
  exact = true;
  return args.map((arg, i) => {
    if (isValidUtf8(mine[i]!)) return arg;
    const token = `${TOKEN}${i}`;
    raw.set(token, mine[i]!);
    return token;
  });
}

/** A key typed on the command line: its exact bytes when they are not valid UTF-8, else the string. */
export function keyOf(arg: string): Key {
  const bytes = raw.get(arg);
  if (bytes !== undefined) return bytes;
  if (!exact && arg.includes('\uFFFD')) {
    throw new CliError(
      `the key ${JSON.stringify(arg)} holds U+FFFD, which is what invalid UTF-8 in an argument becomes here; the bytes you typed cannot be known, so give such keys with --from FILE or on stdin`,
    );
  }
  return arg;
}

/** A file name or other text argument: an argument captured as bytes, decoded as Node would have. */
export function textOf(arg: string): string {
  const bytes = raw.get(arg);
  return bytes === undefined ? arg : AS_NODE.decode(bytes);
}

/** The NUL-separated entries of /proc/self/cmdline, or undefined where there is none. */
function commandLine(): Uint8Array[] | undefined {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync('/proc/self/cmdline');
  } catch {
    return undefined;
  }
  const entries: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0) {
      entries.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < bytes.length) entries.push(bytes.subarray(start));
  return entries;
}

const STRICT = new TextDecoder('utf-8', { fatal: true });

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    STRICT.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
