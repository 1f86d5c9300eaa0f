import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { BinaryFuseFilter } from '@bloomkit/fuse';
import { describe, expect, it } from 'vitest';
import { BIN, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);

function run(args: readonly string[], input?: string) {
  const done = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', input });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

const keys = Array.from({ length: 20_000 }, (_, i) => `https://build.example/${i}/${(i * 7919) % 10_007}`);

describe('bloomkit build: a fixed set, built once from all its keys', () => {
  it('from a file, stdin and arguments: the bytes the library builds of the same keys, answered by has and info', () => {
    writeFileSync(at('keys.txt'), `${keys.join('\n')}\n`);
    expect(run(['build', at('a.bf'), '--from', at('keys.txt')])).toMatchObject({ status: 0, stderr: '' });
    const same = (file: string, bytes: Uint8Array) => Buffer.compare(readFileSync(file), bytes) === 0;
    expect(same(at('a.bf'), BinaryFuseFilter.build(keys).serialize())).toBe(true);
    // stdin, CRLF endings and no final newline, a repeated key: the library's filter of the same keys (the file
    // records the keys given, repeats included, as the reference's Size).
    const repeated = [...keys, keys[0]!];
    expect(run(['build', at('b.bf')], repeated.join('\r\n')).status).toBe(0);
    expect(same(at('b.bf'), BinaryFuseFilter.build(repeated).serialize())).toBe(true);
    expect(run(['has', at('a.bf'), keys[5]!, 'https://elsewhere.example/', '-v'])).toMatchObject({
      status: 1,
      stdout: `${keys[5]}\tpresent\nhttps://elsewhere.example/\tabsent\n`,
    });
    expect(run(['has', at('a.bf'), '--from', at('keys.txt')]).status).toBe(0);
    expect(run(['build', at('c.bf'), '--kind', 'fuse16', '--seed', '77', 'x', 'y', 'x']).status).toBe(0);
    expect(
      same(
        at('c.bf'),
        BinaryFuseFilter.build(['x', 'y', 'x'], { fingerprintBits: 16, seed: 77 }).serialize(),
      ),
    ).toBe(true);
    expect(JSON.parse(run(['info', '--json', at('c.bf')]).stdout)).toMatchObject({
      kind: 'fuse',
      seed: 77,
      count: 2,
      checksum: 'ok',
      facts: { fingerprintBits: 16, keys: 'murmur3' },
    });
    expect(run(['info', at('a.bf')]).stdout).toMatch(/\nfingerprint bits +8\nslots a segment +[\d,]+\n/);
    // NUL-separated keys.
    expect(run(['build', at('d.bf'), '-0', '--from', '-'], 'p\0q\0').status).toBe(0);
    expect(run(['has', at('d.bf'), 'p', 'q', '-v']).stdout).toBe('p\tpresent\nq\tpresent\n');
  });

  it('keeps an existing file without --force, refuses add to a fixed set, and bad kinds and seeds, each with exit 2', () => {
    writeFileSync(at('kept.bf'), 'mine');
    expect(run(['build', at('kept.bf'), 'a'])).toMatchObject({ status: 2 });
    expect(run(['build', at('kept.bf'), 'a']).stderr).toMatch(/already exists \(use --force/);
    expect(readFileSync(at('kept.bf'), 'utf8')).toBe('mine');
    expect(run(['build', at('kept.bf'), 'a', '--force']).status).toBe(0);
    const before = readFileSync(at('kept.bf'));
    expect(run(['add', at('kept.bf'), 'b'])).toMatchObject({ status: 2 });
    expect(run(['add', at('kept.bf'), 'b']).stderr).toMatch(
      /a fuse filter holds a fixed set and takes no keys/,
    );
    expect(readFileSync(at('kept.bf'))).toEqual(before);
    expect(run(['build', at('e.bf'), '--kind', 'fuse12', 'a']).status).toBe(2);
    expect(run(['build', at('e.bf'), '--seed', '-1', 'a']).status).toBe(2);
    expect(existsSync(at('e.bf'))).toBe(false);
    expect(run(['create', at('e.bf'), '--kind', 'fuse', '-n', '10', '-p', '0.01'])).toMatchObject({
      status: 2,
    });
  });

  it('calc shows the fuse filter beside the Bloom layouts and the cuckoo filter', () => {
    const rows = JSON.parse(run(['calc', '-n', '1000000', '-p', '0.01', '--json']).stdout) as {
      layout: string;
      bitsPerKey: number;
      p: number;
    }[];
    const fuse = rows.find((row) => row.layout === 'fuse8')!;
    expect(fuse.p).toBe(2 ** -8);
    expect(fuse.bitsPerKey).toBeCloseTo(9.04, 2);
    expect(rows.find((row) => row.layout === 'standard')!.bitsPerKey).toBeGreaterThan(fuse.bitsPerKey);
    const narrow = JSON.parse(run(['calc', '-n', '1000', '-p', '0.0001', '--json']).stdout) as {
      layout: string;
    }[];
    expect(narrow.map((row) => row.layout)).toContain('fuse16');
    const past = JSON.parse(run(['calc', '-n', '1000', '-p', '1e-6', '--json']).stdout) as {
      layout: string;
    }[];
    expect(past.map((row) => row.layout).filter((name) => name.startsWith('fuse'))).toEqual([]);
  });

  it('SIGINT while it reads its keys: exit 130 and no file (half a set is not the set)', async () => {
    const fifo = at('keys.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [BIN, 'build', at('half.bf'), '--from', fifo], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const err: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The FIFO opens for writing once the run opened it for reading: it is running, its handlers installed.
    const writer = await open(fifo, 'w');
    await writer.write(`${keys.slice(0, 5_000).join('\n')}\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    const status = await closed;
    await writer.close();
    expect([status, Buffer.concat(err).toString()]).toEqual([130, '']);
    expect(existsSync(at('half.bf'))).toBe(false);
  }, 60_000);
});
