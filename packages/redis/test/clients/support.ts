import { spawn } from 'node:child_process';
import type { Key } from '@bloomkit/core';
import type { RedisFilterOptions } from '../../src/index.js';

/** A key's bytes, as a client in another language sends them (a text key: its UTF-8). */
export function bytesOf(key: Key): Buffer {
  return typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
}

/**
 * Runs a client of another language (`command args…`) that reads keys from stdin (a JSON array of base64 strings)
 * and prints one JSON array of answers; resolves to them, or rejects with its stderr when it exits non-zero.
 */
export function runJsonClient(
  command: string,
  args: readonly string[],
  keys: readonly Key[],
): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'pipe' });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${err}`));
      else resolve(JSON.parse(out) as number[]);
    });
    child.stdin.end(JSON.stringify(keys.map((key) => bytesOf(key).toString('base64'))));
  });
}

/** bk_reserve's arguments for create's options. */
export function reserveArgs(o: RedisFilterOptions): string[] {
  return [
    o.kind,
    String(o.capacity),
    String(o.fpr),
    'SEED',
    String(o.seed ?? 0),
    ...(o.counterBits === undefined ? [] : ['COUNTERBITS', String(o.counterBits)]),
    ...(o.growth === undefined ? [] : ['GROWTH', String(o.growth)]),
    ...(o.tightening === undefined ? [] : ['TIGHTENING', String(o.tightening)]),
    ...(o.exceptions ? ['EXCEPTIONS'] : []),
  ];
}

/** A test's name for a kind's options. */
export const label = (o: RedisFilterOptions): string =>
  `${o.kind}${o.counterBits ? ` ${o.counterBits}-bit` : ''}${o.exceptions ? ' with exceptions' : ''}`;

/** The error message a call fails with (the test fails when it succeeds). */
export async function refusal(call: Promise<unknown>): Promise<string> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected an error reply, got ${JSON.stringify(outcome.value)}`);
  return outcome.error.message;
}
