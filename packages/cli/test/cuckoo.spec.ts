import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

function run(args: readonly string[], input?: string) {
  const done = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', input });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

describe('bloomkit with --kind cuckoo', () => {
  it('creates, adds, answers, deletes, merges and inspects a cuckoo filter file', () => {
    const file = join(dir, 'c.blmk');
    const other = join(dir, 'd.blmk');
    const merged = join(dir, 'm.blmk');
    expect(run(['create', file, '--kind', 'cuckoo', '-n', '1000', '-p', '0.01']).status).toBe(0);
    expect(run(['add', file, '--from', '-'], 'a\nb\nc\na\n').status).toBe(0);
    expect(run(['has', file, 'a', 'zz', '-v'])).toMatchObject({
      status: 1,
      stdout: 'a\tpresent\nzz\tabsent\n',
    });
    expect(run(['delete', file, 'a', 'b', 'b', '-v'])).toMatchObject({
      status: 1,
      stdout: 'a\tdeleted\nb\tdeleted\nb\tabsent\n',
    });
    expect(run(['has', file, 'a', 'b', 'c', '-v']).stdout).toBe('a\tpresent\nb\tabsent\nc\tpresent\n');
    expect(JSON.parse(run(['info', '--json', file]).stdout)).toMatchObject({
      kind: 'cuckoo',
      count: 2,
      capacity: 1000,
      targetFpr: 0.01,
      checksum: 'ok',
      facts: { fingerprintBits: 10, bucketSize: 4, buckets: 278, maxKicks: 1000 },
    });
    expect(run(['info', file]).stdout).toMatch(
      /\nfingerprint bits +10\nslots a bucket +4\nbuckets +278\nmax kicks +1,000\n/,
    );
    expect(run(['delete', '--help']).stdout).toMatch(/counting or cuckoo filter/);
    const fuse = run(['create', join(dir, 'f.blmk'), '--kind', 'fuse', '-n', '10', '-p', '0.01']);
    expect([fuse.status, fuse.stderr]).toEqual([
      2,
      `bloomkit: ${join(dir, 'f.blmk')}: a fuse filter holds a fixed set and is built from all its keys at once: bloomkit build ${join(dir, 'f.blmk')} --kind fuse8 --from KEYS (or fuse16)\n`,
    ]);
    expect(run(['create', other, '--kind', 'cuckoo', '-n', '1000', '-p', '0.01']).status).toBe(0);
    expect(run(['add', other, 'x', 'c']).status).toBe(0);
    expect(run(['merge', merged, file, other]).status).toBe(0);
    expect(run(['has', merged, 'a', 'c', 'x', '-v']).stdout).toBe('a\tpresent\nc\tpresent\nx\tpresent\n');
    expect(JSON.parse(run(['info', '--json', merged]).stdout)).toMatchObject({ count: 4 });
  });

  it('dedup stores no copy of a repeat, prints every first occurrence, and past its room warns and exits 3', () => {
    const lines = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `line-${from + i}`);
    // Each line ten times: a copy per repeat filled a key's two buckets at its ninth (exit 2, lines lost).
    const repeated = `${Array.from({ length: 10 }, () => lines(0, 2000))
      .flat()
      .join('\n')}\n`;
    const state = join(dir, 'dedup.blmk');
    const first = run(['dedup', '--kind', 'cuckoo', '--capacity', '4000', '--state', state], repeated);
    expect([first.status, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toBe(`${lines(0, 2000).join('\n')}\n`);
    expect(JSON.parse(run(['info', '--json', state]).stdout)).toMatchObject({ kind: 'cuckoo', count: 2000 });
    // Past its room: each new line printed once (no line lost), a warning naming the state, exit 3.
    const past = run(['dedup', '--state', state], `${lines(2000, 8000).join('\n')}\n`);
    expect(past.status).toBe(3);
    expect(past.stderr).toMatch(/warning: full at \d+ keys: a new line finds no room;/);
    const printed = past.stdout.split('\n').filter(Boolean);
    expect(printed.length).toBeGreaterThan(5_990);
    expect(new Set(printed).size).toBe(printed.length);
  });

  it('refuses keys past the table’s room and leaves the file as it was', () => {
    const file = join(dir, 'small.blmk');
    expect(run(['create', file, '--kind', 'cuckoo', '-n', '20', '-p', '0.01']).status).toBe(0);
    expect(run(['add', file, 'kept']).status).toBe(0);
    const before = readFileSync(file);
    const keys = `${Array.from({ length: 100 }, (_, i) => `k${i}`).join('\n')}\n`;
    const full = run(['add', file, '--from', '-'], keys);
    expect(full.status).toBe(2);
    // The slots filled when the key found no room (the batch's keys before it counted), not the count before it.
    expect(full.stderr).toBe(
      `bloomkit: ${file}: no room for the key after 1000 kicks (24 of 24 slots hold fingerprints, capacity 20); nothing was changed\n`,
    );
    expect(readFileSync(file)).toEqual(before);
    expect(run(['has', file, 'kept']).status).toBe(0);
  });
});
