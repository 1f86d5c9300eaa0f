import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BloomFilter } from '@bloomkit/core';
import { deserializeAny } from '@bloomkit/filters';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);

/**
 * Lines as `add` and `has` read them, with what makes their keys differ from their lines: CRLF endings (the CR is
 * not part of the key), empty lines, invalid UTF-8, non-ASCII text, keys repeated within one batch of 1,024 lines
 * and across batches, and a last line without a newline.
 */
function inputLines(count: number, host: string): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    let line: Buffer;
    if (i % 97 === 5) line = Buffer.from([0x6b, 0xff, 0xfe, 0x80 + (i % 64), 0x41]);
    else if (i % 89 === 7) line = Buffer.from(`https://${host}.example/café/${i}`);
    else if (i % 83 === 11) line = Buffer.alloc(0);
    else if (i % 7 === 3)
      line = Buffer.from(`https://${host}.example/${i - 3}`); // a repeat, 3 lines later
    else if (i % 1031 === 13)
      line = Buffer.from(`https://${host}.example/0`); // a repeat, batches later
    else line = Buffer.from(`https://${host}.example/${i}`);
    const ending = i === count - 1 ? '' : i % 5 === 2 ? '\r\n' : '\n';
    parts.push(line, Buffer.from(ending));
  }
  return Buffer.concat(parts);
}

/** The keys of `input`'s lines: each line's bytes without its LF and a CR before it. */
function keysOf(input: Buffer): Uint8Array[] {
  const keys: Uint8Array[] = [];
  let start = 0;
  while (start < input.length) {
    let end = input.indexOf(0x0a, start);
    const next = end === -1 ? input.length : end + 1;
    if (end === -1) end = input.length;
    else if (end > start && input[end - 1] === 0x0d) end--;
    keys.push(new Uint8Array(input.subarray(start, end)));
    start = next;
  }
  return keys;
}

/** What `-v` prints: each key, a tab, and the answer's word. */
function verboseLines(
  keys: readonly Uint8Array[],
  answers: readonly boolean[],
  yes: string,
  no: string,
): Buffer {
  return Buffer.concat(
    keys.flatMap((key, i) => [Buffer.from(key), Buffer.from(`\t${answers[i] ? yes : no}\n`)]),
  );
}

const readFilter = (file: string): BloomFilter => deserializeAny(readFileSync(file)).filter;

// Sizes on both sides of 256 KiB of bits: the larger filters' bits go into a WebAssembly memory and their batches
// run in the kernel; the smaller ones run the JavaScript loops. Counting, scalable and window filters take hashes
// a batch at a time too.
const CASES: readonly (readonly [string, readonly string[]])[] = [
  ['standard, kernel', ['--kind', 'standard', '-n', '400000', '-p', '0.01']],
  ['standard, small', ['--kind', 'standard', '-n', '2000', '-p', '0.01']],
  ['partitioned, kernel', ['--kind', 'partitioned', '-n', '400000', '-p', '0.01']],
  ['blocked, kernel', ['--kind', 'blocked', '-n', '400000', '-p', '0.01']],
  ['blocked, small', ['--kind', 'blocked', '-n', '2000', '-p', '0.01']],
  ['counting', ['--kind', 'counting', '-n', '20000', '-p', '0.01']],
  ['scalable', ['--kind', 'scalable', '-n', '1000', '-p', '0.01']],
  ['window', ['--kind', 'window', '-n', '20000', '-p', '0.01']],
];

describe('add and has over input lines, a batch at a time', () => {
  it.each(CASES)(
    '%s: every answer, the exit status and the file are those of the library key by key',
    async (name, shape) => {
      const file = at(`${name.replace(/\W+/g, '-')}.bf`);
      expect(
        (await bloomkit(['create', file, ...shape, '--seed', '11', '--force'], { cwd: dir })).status,
      ).toBe(0);
      const expected = readFilter(file);
      const input = inputLines(5000, 'site');
      writeFileSync(at('lines.txt'), input);
      const keys = keysOf(input);

      const added = keys.map((key) => !expected.add(key));
      const add = await bloomkit(['add', '-v', file, '--from', at('lines.txt')], { cwd: dir });
      // Exit 3 when a fixed filter passed its capacity (the small ones, of 2,000 keys), else 0.
      const fixed = !['scalable', 'window'].includes(name);
      expect(add.status, add.stderr).toBe(fixed && expected.count > (expected.capacity ?? Infinity) ? 3 : 0);
      expect(add.bytes.equals(verboseLines(keys, added, 'present', 'added'))).toBe(true);
      expect(Buffer.from(readFileSync(file)).equals(Buffer.from(expected.serialize()))).toBe(true);
      expect(added.filter((present) => present).length).toBeGreaterThan(700); // the repeats

      // has over the same lines (all present) and over others (mostly absent), from stdin.
      const others = inputLines(3000, 'miss');
      const otherKeys = keysOf(others);
      const found = otherKeys.map((key) => expected.has(key));
      const has = await bloomkit(['has', '-v', file], { cwd: dir, input: others });
      expect(has.status).toBe(found.every(Boolean) ? 0 : 1);
      expect(has.bytes.equals(verboseLines(otherKeys, found, 'present', 'absent'))).toBe(true);
      const again = await bloomkit(['has', file, '--from', at('lines.txt')], { cwd: dir });
      expect(again.status).toBe(0);
      // `add` answers a repeated line as `has` would have before it: a second add says every key is present.
      const second = await bloomkit(['add', '--test', file, '--from', at('lines.txt')], { cwd: dir });
      expect(second.status).toBe(0);
    },
  );

  it.each([
    ['counting, small', ['-n', '20000']],
    ['counting, kernel', ['-n', '400000', '--counter-bits', '8']],
  ])('%s: delete over input lines answers and writes as the library key by key', async (name, shape) => {
    const file = at(`${name.replace(/\W+/g, '-')}-delete.bf`);
    const create = ['create', file, '--kind', 'counting', ...shape, '-p', '0.01', '--seed', '4', '--force'];
    expect((await bloomkit(create, { cwd: dir })).status).toBe(0);
    const input = inputLines(5000, 'site');
    writeFileSync(at('delete-lines.txt'), input);
    expect((await bloomkit(['add', file, '--from', at('delete-lines.txt')], { cwd: dir })).status).toBe(0);
    const expected = readFilter(file) as BloomFilter & { delete(key: Uint8Array): boolean };
    // Each line once more than it was added where it repeats, plus lines never added: deleted, then absent.
    const doomed = Buffer.concat([input, Buffer.from('\n'), inputLines(3000, 'gone')]);
    const keys = keysOf(doomed);
    const deleted = keys.map((key) => expected.delete(key));
    const run = await bloomkit(['delete', '-v', file], { cwd: dir, input: doomed });
    expect(run.status, run.stderr).toBe(1);
    expect(run.bytes.equals(verboseLines(keys, deleted, 'deleted', 'absent'))).toBe(true);
    expect(Buffer.from(readFileSync(file)).equals(Buffer.from(expected.serialize()))).toBe(true);
    expect(deleted.filter(Boolean).length).toBeGreaterThan(4000);
    expect(deleted.filter((yes) => !yes).length).toBeGreaterThan(2500);
  });

  it('NUL-separated keys (-0) keep CRs and newlines inside them', async () => {
    const file = at('nul.bf');
    await bloomkit(['create', file, '-n', '400000', '-p', '0.01', '--seed', '3', '--force'], { cwd: dir });
    const expected = readFilter(file);
    const keys = Array.from({ length: 2500 }, (_, i) => Buffer.from(`key\r\n${i % 1800}\r`));
    const input = Buffer.concat(keys.flatMap((key) => [key, Buffer.from([0])]));
    const added = keys.map((key) => !expected.add(new Uint8Array(key)));
    const add = await bloomkit(['add', '-0', '-v', file], { cwd: dir, input });
    expect(add.status).toBe(0);
    expect(add.bytes.equals(verboseLines(keys, added, 'present', 'added'))).toBe(true);
    expect(Buffer.from(readFileSync(file)).equals(Buffer.from(expected.serialize()))).toBe(true);
  });

  it('warns once, at the line that passes the capacity, when a batch passes it', async () => {
    const file = at('capacity.bf');
    await bloomkit(['create', file, '-n', '1500', '-p', '0.01', '--force'], { cwd: dir });
    const lines = Array.from({ length: 3000 }, (_, i) => `k${i}`).join('\n');
    const add = await bloomkit(['add', file], { cwd: dir, input: lines });
    expect(add.status).toBe(3);
    const warnings = add.stderr.split('\n').filter((line) => line.includes('past its capacity'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('now holds 1,501 keys, past its capacity of 1,500');
  });
});
