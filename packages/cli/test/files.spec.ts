import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describe, expect, it } from 'vitest';
import { readFilterBytes } from '../src/files.js';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);

describe('filter files', () => {
  it('a write through a symlink updates the file it points to, and the link stays a link', async () => {
    const real = at('real.bf');
    const link = at('link.bf');
    await bloomkit(['create', real, '-n', '100', '-p', '0.01'], { cwd: dir });
    symlinkSync('real.bf', link);
    expect((await bloomkit(['add', link, 'through-the-link'], { cwd: dir })).status).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(StandardBloomFilter.deserialize(readFileSync(real)).has('through-the-link')).toBe(true);
    // A dangling link: create writes the file it names.
    symlinkSync('made-through-link.bf', at('dangling.bf'));
    expect(
      (await bloomkit(['create', at('dangling.bf'), '-n', '10', '-p', '0.1'], { cwd: dir })).status,
    ).toBe(0);
    expect(lstatSync(at('dangling.bf')).isSymbolicLink()).toBe(true);
    expect(existsSync(at('made-through-link.bf'))).toBe(true);
  });

  it('temporary files have unpredictable names: links planted under the old predictable names are never followed', async () => {
    const file = at('target.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const victim = at('victim.txt');
    writeFileSync(victim, 'precious');
    // The old scheme was `.NAME.PID.tmp`; plant one for every process id the next runs could get.
    const probe = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const next = Number(probe.stdout.toString());
    for (let pid = next; pid < next + 300; pid++) symlinkSync(victim, at(`.target.bf.${pid}.tmp`));
    for (let i = 0; i < 3; i++) expect((await bloomkit(['add', file, `k${i}`], { cwd: dir })).status).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    // The writer (holding the lock) removed the planted names, as it removes a killed writer's leftovers.
    expect(
      readdirSync(dir).filter((name) => name.startsWith('.target.bf.') && name.endsWith('.tmp')),
    ).toEqual([]);
    expect(StandardBloomFilter.deserialize(readFileSync(file)).has('k2')).toBe(true);
  });

  it('a stale temporary file of a killed writer is cleaned by the next writer', async () => {
    const file = at('stale.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    writeFileSync(at('.stale.bf.0123456789abcdef.tmp'), 'half-written');
    writeFileSync(at('.stale.bf.keep.tmp'), 'not ours');
    expect((await bloomkit(['add', file, 'x'], { cwd: dir })).status).toBe(0);
    expect(existsSync(at('.stale.bf.0123456789abcdef.tmp'))).toBe(false);
    expect(existsSync(at('.stale.bf.keep.tmp'))).toBe(true);
  });

  it('the header is read and checked before the payload: a 1.5 GiB sparse file with a bad version is refused at once', async () => {
    const file = at('sparse.bf');
    const good = StandardBloomFilter.create(10, 0.1).serialize();
    const fd = openSync(file, 'w');
    const header = Buffer.from(good.subarray(0, 24));
    header[4] = 9; // a format version from the future
    // Payload length consistent with the file's size, so only the version is wrong.
    const size = 1.5 * 2 ** 30;
    header.writeUInt32LE((size - 24 - 4) % 2 ** 32, 16);
    header.writeUInt16LE(0, 12);
    writeSync(fd, header, 0, 24, 0);
    writeSync(fd, Buffer.alloc(1), 0, 1, size - 1);
    closeSync(fd);

    const before = process.memoryUsage().rss;
    await expect(readFilterBytes(file)).rejects.toThrow(
      /sparse\.bf: format version 9 is newer than this reader/,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 2 ** 20);
    const run = await bloomkit(['has', file, 'x'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^bloomkit: .*sparse\.bf: format version 9 is newer than this reader/);
  });
});

describe('a filter file with hard links', () => {
  it('is refused before anything is read or written: a write would split the names', async () => {
    const file = at('linked.bf');
    const other = at('linked-too.bf');
    expect((await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
    linkSync(file, other);
    const before = readFileSync(file);
    const add = await bloomkit(['add', file, 'x'], { cwd: dir });
    expect(add.status).toBe(2);
    expect(add.stderr).toBe(
      `bloomkit: ${file}: has 2 hard links; writing it replaces it with a new file (atomically), which the other names would not follow: keep one name (a symbolic link is followed) or copy the file\n`,
    );
    expect(readFileSync(file)).toEqual(before);
    expect(readFileSync(other)).toEqual(before);
    // Reading needs no lock and splits nothing.
    expect((await bloomkit(['has', other, 'x'], { cwd: dir })).status).toBe(1);
    unlinkSync(other);
    expect((await bloomkit(['add', file, 'x'], { cwd: dir })).status).toBe(0);
  });
});
