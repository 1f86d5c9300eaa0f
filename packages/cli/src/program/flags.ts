import { type Command, Option } from 'commander';
import { textOf } from '../arguments.js';
import type { KeyedOptions } from '../commands/keyed.js';
import { CliError } from '../errors.js';
import { DEFAULT_WAIT_SECONDS } from '../lock.js';
import type { RedisConnectionFlags } from '../redis-target.js';
import { parseNumber } from '../units.js';

// The flags' parsers and the option groups several commands share. Each parser's error names the flag and its
// allowed range.

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** An integer option in [min, max]; the error names the option and the range. */
export function integer(flag: string, min: number, max: number, maxText = String(max)) {
  return (text: string): number => {
    const value = parseNumber(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new CliError(`${flag} must be an integer in [${min}, ${maxText}], got '${text}'`);
    }
    return value;
  };
}

export function rate(flag: string) {
  return (text: string): number => {
    const value = parseNumber(text);
    if (!(value > 0 && value < 1)) throw new CliError(`${flag} must be a number in (0, 1), got '${text}'`);
    return value;
  };
}

export function seed(text: string): number | 'random' {
  if (text === 'random') return 'random';
  return integer('--seed', 0, 0xffffffff, '2^32 - 1')(text);
}

export function counterBits(text: string): number {
  if (text !== '4' && text !== '8' && text !== '16') {
    throw new CliError(`--counter-bits must be 4, 8 or 16, got '${text}'`);
  }
  return Number(text);
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, textOf(value)];
}

export function waitSeconds(text: string): number {
  const value = parseNumber(text);
  if (!(value >= 0 && value <= 86_400)) {
    throw new CliError(`--wait must be a number of seconds in [0, 86400], got '${text}'`);
  }
  return value;
}

/** `--wait`, taken by every command that writes a filter file. */
export function waitFlag(): Option {
  return new Option(
    '--wait <seconds>',
    `how long to wait for another bloomkit writing the same file (default ${DEFAULT_WAIT_SECONDS})`,
  ).argParser(waitSeconds);
}

export function waitOption(command: Command): Command {
  return command.addOption(waitFlag());
}

/** The options every key-reading command takes. */
export function keyOptions(command: Command): Command {
  return command
    .option('--from <file>', 'read keys from FILE, one per line (- is stdin); repeatable', collect, [])
    .option('-0, --null', 'keys are separated by NUL bytes, not newlines (as find -print0 writes)')
    .option('-v, --verbose', "print each key with the filter's answer, tab-separated")
    .option('-q, --quiet', 'no progress on stderr');
}

export function keyed(keys: string[], options: Record<string, unknown>): KeyedOptions {
  return {
    keys,
    from: options.from as string[],
    nul: options.null === true,
    verbose: options.verbose === true,
    quiet: options.quiet === true,
  };
}

/**
 * The connection flags of a command that talks to Redis: --cluster, --password-file, --tls-ca, --tls-cert,
 * --tls-key (see redis-target.ts). `prefix` says when they apply ("with --redis: ").
 */
export function redisConnectionOptions(command: Command, prefix = ''): Command {
  return command
    .option('--cluster', `${prefix}the URL is a node of a Redis Cluster`)
    .option(
      '--password-file <file>',
      `${prefix}read the password from FILE's first line (else from the URL, else from REDISCLI_AUTH)`,
    )
    .option('--tls-ca <file>', `${prefix}rediss://: trust the certificate authority in FILE (PEM)`)
    .option('--tls-cert <file>', `${prefix}rediss://: present the client certificate in FILE (PEM)`)
    .option('--tls-key <file>', `${prefix}rediss://: the client certificate's private key (PEM)`);
}

/** The connection flags as read by commander (see {@link redisConnectionOptions}). */
export function redisFlags(o: Record<string, unknown>): RedisConnectionFlags {
  const file = (value: unknown) => (typeof value === 'string' ? textOf(value) : undefined);
  return {
    cluster: o.cluster === true,
    passwordFile: file(o.passwordFile),
    tlsCa: file(o.tlsCa),
    tlsCert: file(o.tlsCert),
    tlsKey: file(o.tlsKey),
  };
}

/** Help text for the Redis URL and its connection settings. */
export const REDIS_HELP = `
Redis: redis://[user[:password]@]host[:port]/NAME[?db=N], rediss:// for TLS. NAME is the filter; ?db=N selects a
database (a cluster has only 0). The password comes from the URL, else --password-file, else the REDISCLI_AUTH
variable (as for redis-cli): prefer the last two, since a URL on the command line is visible to ps. A server that
refuses the connection or does not answer within 3 s fails the command at once, with what to do; so does any later
reply that takes over 10 s. SIGINT or SIGTERM ends a run waiting on a server (exit 130 or 143).`;

export const KEY_HELP = `
Keys are bytes: a line is hashed as the bytes it has (a CRLF ending is stripped), so a line that is not valid UTF-8
still has one identity, and a key typed here hashes as the same string does in the library. With no KEYS and no
--from, keys are read from stdin.

Exit status, as grep's: 0 when every answer is yes, 1 when some answer is no, 2 on error (add: 0 when it succeeded).`;
