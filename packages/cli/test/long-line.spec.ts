import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { describe, expect, it } from 'vitest';
import { BIN, bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const MiB = 2 ** 20;

/** `length` bytes of `fill`. */
const line = (length: number, fill: string) => Buffer.alloc(length, fill);

describe('dedup of lines longer than its buffer', () => {
  it('hashes them in pieces as the whole line: repeats dropped (CRLF too, a CR at the buffer edge), order kept', async () => {
    const a = line(3.5 * MiB, 'a');
    const b = line(MiB - 1, 'b'); // With its CR, exactly fills the buffer at the file's start.
    const input = Buffer.concat([
      b,
      Buffer.from('\r\n'),
      a,
      Buffer.from('\n'),
      Buffer.from('short\n'),
      a,
      Buffer.from('\r\n'),
      b,
      Buffer.from('\n'),
      line(2 * MiB + 3, 'c'), // the last line, without a newline
    ]);
    const file = join(dir, 'long.txt');
    writeFileSync(file, input);
    const state = join(dir, 'long-state.bf');
    const run = await bloomkit(['dedup', '--state', state, '--fpr', '1e-9', file], { cwd: dir });
    expect([run.status, run.stderr]).toEqual([0, '']);
    const expected = Buffer.concat([
      b,
      Buffer.from('\r\n'),
      a,
      Buffer.from('\n'),
      Buffer.from('short\n'),
      line(2 * MiB + 3, 'c'),
    ]);
    expect(run.bytes.equals(expected)).toBe(true);
    // The state holds each line as the library hashes the whole key.
    const filter = ScalableBloomFilter.deserialize(readFileSync(state));
    for (const key of [a, b, Buffer.from('short'), line(2 * MiB + 3, 'c')])
      expect(filter.has(key)).toBe(true);
    expect(filter.count).toBe(4);
  });

  it('a 400 MB line peaks within 50 MB of a short-line run', () => {
    const peak = (generate: string) => {
      const result = spawnSync('sh', ['-c', `{ ${generate}; } | "$NODE" "$BIN" dedup --stats > /dev/null`], {
        env: { ...process.env, NODE: process.execPath, BIN },
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      expect(result.status).toBe(0);
      const match = /peak memory (\d+) MiB/.exec(result.stderr);
      expect(match).not.toBeNull();
      return Number(match![1]);
    };
    const long = peak(`head -c ${400 * MiB} /dev/zero | tr '\\0' x; echo; echo short`);
    const short = peak(`seq 1 200000`);
    expect(long - short).toBeLessThan(50);
  });
});

describe('keys read whole (add, has)', () => {
  it('a line up to 64 MiB is a key; a longer one (an input with no separator) is refused, the file unchanged', async () => {
    const file = join(dir, 'whole.bf');
    expect((await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
    const before = readFileSync(file);
    const refused = (name: string) =>
      `bloomkit: ${name}: a line is longer than 64 MiB, the longest key read (dedup, except with --redis, takes lines of any length)\n`;
    // No separator at all: refused after 64 MiB read, not grown until memory runs out.
    const zeros = await bloomkit(['add', file, '--from', '/dev/zero'], { cwd: dir });
    expect([zeros.status, zeros.stderr]).toEqual([2, refused('/dev/zero')]);
    const tooLong = Buffer.concat([Buffer.from('first\n'), line(64 * MiB, 'z'), Buffer.from('\n')]);
    for (const args of [
      ['add', '-v', file],
      ['has', file],
    ]) {
      const run = await bloomkit(args, { cwd: dir, input: tooLong });
      expect([args[0], run.status, run.stdout, run.stderr]).toEqual([args[0], 2, '', refused('stdin')]);
    }
    expect(readFileSync(file)).toEqual(before);
    // One byte shorter is a key like any other.
    const longest = line(64 * MiB - 1, 'z');
    const added = await bloomkit(['add', file], {
      cwd: dir,
      input: Buffer.concat([longest, Buffer.from('\n')]),
    });
    expect([added.status, added.stderr]).toEqual([0, '']);
    const asked = await bloomkit(['has', file], {
      cwd: dir,
      input: Buffer.concat([longest, Buffer.from('\n')]),
    });
    expect([asked.status, asked.stderr]).toEqual([0, '']);
  });
});
