import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlockedBloomFilter } from '@bloomkit/blocked';
import { chooseShape, standardLayout } from '@bloomkit/core';
import { CountingBloomFilter } from '@bloomkit/counting';
import { cuckooShape } from '@bloomkit/cuckoo';
import { StandardBloomFilter } from '@bloomkit/standard';
import { WindowBloomFilter } from '@bloomkit/window';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);

describe('bloomkit --help', () => {
  it('prints real help for the program and each command; unknown commands exit 2', async () => {
    const top = await bloomkit(['--help'], { cwd: dir });
    expect(top.status).toBe(0);
    for (const command of ['create', 'add', 'has', 'dedup', 'info', 'merge', 'intersect', 'delete', 'calc']) {
      expect(top.stdout).toContain(command);
      const help = await bloomkit([command, '--help'], { cwd: dir });
      expect(help.status).toBe(0);
      expect(help.stdout).toContain(`Usage: bloomkit ${command}`);
    }
    expect((await bloomkit(['create', '--help'], { cwd: dir })).stdout).toContain('--capacity');
    const unknown = await bloomkit(['frobnicate'], { cwd: dir });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });
});

describe('create, add, has', () => {
  it('answers with grep-like exit statuses (add: 0 when it succeeded; add --test: grep-like) and -v answers, and the file is the library filter', async () => {
    const file = at('urls.bf');
    expect(
      (await bloomkit(['create', file, '--capacity', '1000', '--fpr', '0.01', '--seed', '7'], { cwd: dir }))
        .status,
    ).toBe(0);
    // add succeeds with new keys: 0, so `set -e` scripts go on.
    expect((await bloomkit(['add', file, 'https://a.example/'], { cwd: dir })).status).toBe(0);
    // add --test: 1 when some key was new (it is added all the same), 0 when every key was present already.
    const tested = await bloomkit(['add', '--test', '-v', file, 'https://a.example/', 'https://b.example/'], {
      cwd: dir,
    });
    expect([tested.status, tested.stdout]).toEqual([
      1,
      'https://a.example/\tpresent\nhttps://b.example/\tadded\n',
    ]);
    expect(
      (await bloomkit(['add', '--test', file, 'https://a.example/', 'https://b.example/'], { cwd: dir }))
        .status,
    ).toBe(0);
    expect((await bloomkit(['add', file, 'https://a.example/'], { cwd: dir })).status).toBe(0);
    expect(
      (await bloomkit(['has', file, 'https://a.example/', 'https://b.example/'], { cwd: dir })).status,
    ).toBe(0);
    const mixed = await bloomkit(['has', '-v', file, 'https://a.example/', 'https://zzz.example/'], {
      cwd: dir,
    });
    expect(mixed.status).toBe(1);
    expect(mixed.stdout).toBe('https://a.example/\tpresent\nhttps://zzz.example/\tabsent\n');

    const expected = StandardBloomFilter.create(1000, 0.01, { seed: 7 });
    expected.addAll(['https://a.example/', 'https://b.example/']);
    expect(StandardBloomFilter.deserialize(readFileSync(file)).serialize()).toEqual(expected.serialize());
  });

  it('reads keys as bytes from stdin, --from files and NUL-separated input, the way the library hashes strings', async () => {
    const file = at('bytes.bf');
    await bloomkit(['create', file, '-n', '1000', '-p', '0.001', '--kind', 'blocked'], { cwd: dir });
    const invalidUtf8 = Buffer.from([0x66, 0xff, 0xfe, 0x6f]);
    const input = Buffer.concat([
      Buffer.from('café\r\nplain\n'),
      invalidUtf8,
      Buffer.from('\nlast-without-newline'),
    ]);
    expect((await bloomkit(['add', file], { cwd: dir, input })).status).toBe(0);
    writeFileSync(at('keys.txt'), 'café\nplain\nlast-without-newline\n');
    expect((await bloomkit(['has', file, '--from', at('keys.txt')], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['has', file, '--from', '-'], { cwd: dir, input: invalidUtf8 })).status).toBe(0);
    expect((await bloomkit(['has', file, '-0'], { cwd: dir, input: 'plain\0café\0' })).status).toBe(0);
    expect((await bloomkit(['has', file, 'café\r'], { cwd: dir })).status).toBe(1);

    const filter = BlockedBloomFilter.deserialize(readFileSync(file));
    for (const key of ['café', 'plain', 'last-without-newline']) expect(filter.has(key)).toBe(true);
    expect(filter.has(new Uint8Array(invalidUtf8))).toBe(true);
    expect(filter.count).toBe(4);
  });

  it('--duration makes a time window: every key of the last duration is kept, as WindowBloomFilter.create makes it', async () => {
    const file = at('day.bf');
    const run = await bloomkit(
      ['create', file, '--kind', 'window', '-n', '2000', '-p', '0.01', '--duration', '90m', '--seed', '7'],
      { cwd: dir },
    );
    expect([run.status, run.stderr]).toEqual([0, '']);
    const filter = WindowBloomFilter.deserialize(readFileSync(file));
    const expected = WindowBloomFilter.create(2000, 0.01, { duration: 90 * 60_000, seed: 7 });
    expect([filter.duration, filter.window, filter.bits, filter.hashes, filter.seed]).toEqual([
      90 * 60_000,
      2000,
      expected.bits,
      expected.hashes,
      7,
    ]);
    expect((await bloomkit(['info', file], { cwd: dir })).stdout).toMatch(/window\s+2,000 keys per 1\.5h/);
  });

  it('refuses an existing file without --force, and bad arguments with one line naming the option', async () => {
    const file = at('exists.bf');
    expect((await bloomkit(['create', file, '-n', '10', '-p', '0.1'], { cwd: dir })).status).toBe(0);
    const again = await bloomkit(['create', file, '-n', '10', '-p', '0.1'], { cwd: dir });
    expect([again.status, again.stderr]).toEqual([
      2,
      `bloomkit: ${file}: already exists (use --force to replace it)\n`,
    ]);
    expect((await bloomkit(['create', file, '-n', '10', '-p', '0.1', '--force'], { cwd: dir })).status).toBe(
      0,
    );
    const cases: [string[], RegExp][] = [
      [
        ['create', at('x.bf'), '-n', 'many', '-p', '0.1'],
        /--capacity must be an integer in \[1, 2\^53 - 1\], got 'many'/,
      ],
      [['create', at('x.bf'), '-n', '10', '-p', '1.5'], /--fpr must be a number in \(0, 1\), got '1.5'/],
      [['create', at('x.bf'), '-m', '100', '-k', '99'], /--hashes must be an integer in \[1, 64\], got '99'/],
      [
        ['create', at('x.bf'), '-n', '10', '-p', '0.1', '--kind', 'quotient'],
        /--kind must be one of standard, partitioned/,
      ],
      [
        ['create', at('x.bf'), '-n', '10', '-p', '0.1', '--seed', '-1'],
        /--seed must be an integer in \[0, 2\^32 - 1\]/,
      ],
      [
        ['create', at('x.bf'), '-m', '100', '-k', '3', '--kind', 'scalable'],
        /scalable filter is sized by --capacity/,
      ],
      [['create', at('x.bf')], /give --capacity N and --fpr P/],
      [
        ['create', at('x.bf'), '-n', '10', '-p', '0.1', '--duration', '1h'],
        /--duration applies to --kind window \(a filter that forgets\), not --kind standard/,
      ],
      [
        ['create', at('x.bf'), '-n', '10', '-p', '0.1', '--kind', 'window', '--duration', '2y'],
        /--duration must be a time such as 500ms, 90s, 15m, 24h or 7d \(at least 1 ms\), got '2y'/,
      ],
      [['create', join(dir, 'no-such-dir', 'x.bf'), '-n', '10', '-p', '0.1'], /no such file or directory/],
      [['has', at('missing.bf'), 'k'], /missing\.bf: no such file or directory/],
    ];
    for (const [args, message] of cases) {
      const run = await bloomkit(args, { cwd: dir });
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('info', () => {
  it('prints kind, shape, fill, estimate and checksum status; --json for scripts; a corrupt file exits 2', async () => {
    const file = at('info.bf');
    await bloomkit(
      ['create', file, '-n', '5000', '-p', '0.01', '--kind', 'counting', '--counter-bits', '8'],
      {
        cwd: dir,
      },
    );
    await bloomkit(['add', file, '--from', '-'], {
      cwd: dir,
      input: Array.from({ length: 500 }, (_, i) => `k${i}`).join('\n'),
    });
    const text = await bloomkit(['info', file], { cwd: dir });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/kind\s+counting/);
    expect(text.stdout).toMatch(/counter width\s+8 bits/);
    expect(text.stdout).toMatch(/checksum\s+ok/);
    const info = JSON.parse((await bloomkit(['info', '--json', file], { cwd: dir })).stdout);
    expect(info).toMatchObject({
      kind: 'counting',
      counterBits: 8,
      capacity: 5000,
      targetFpr: 0.01,
      count: 500,
    });
    expect(Math.abs(info.estimatedCount - 500)).toBeLessThan(25);
    expect(info.currentFpr).toBeLessThan(0.01);

    const bytes = readFileSync(file);
    bytes[bytes.length - 10]! ^= 1;
    writeFileSync(at('corrupt.bf'), bytes);
    const corrupt = await bloomkit(['info', at('corrupt.bf')], { cwd: dir });
    expect(corrupt.status).toBe(2);
    expect(corrupt.stdout).toMatch(/checksum\s+checksum mismatch/);
    const has = await bloomkit(['has', at('corrupt.bf'), 'k1'], { cwd: dir });
    expect(has.status).toBe(2);
    expect(has.stderr).toMatch(/^bloomkit: .*checksum mismatch.*corrupt\n$/);

    writeFileSync(at('foreign.bf'), '{"not": "a filter"}');
    const foreign = await bloomkit(['info', at('foreign.bf')], { cwd: dir });
    expect([foreign.status, foreign.stderr]).toEqual([
      2,
      `bloomkit: ${at('foreign.bf')}: not a bloomkit filter (magic bytes are not "BLMK")\n`,
    ]);
  });
});

describe('merge, intersect, delete', () => {
  it('merge is the library union; intersect keeps common keys; incompatible inputs exit 2', async () => {
    const a = at('a.bf');
    const b = at('b.bf');
    for (const file of [a, b])
      await bloomkit(['create', file, '-n', '1000', '-p', '0.01', '--kind', 'partitioned'], { cwd: dir });
    await bloomkit(['add', a, 'x', 'both'], { cwd: dir });
    await bloomkit(['add', b, 'y', 'both'], { cwd: dir });
    expect((await bloomkit(['merge', at('ab.bf'), a, b], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['has', at('ab.bf'), 'x', 'y', 'both'], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['intersect', at('i.bf'), a, b], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['has', at('i.bf'), 'both'], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['has', at('i.bf'), 'x'], { cwd: dir })).status).toBe(1);
    expect((await bloomkit(['merge', a, a, b], { cwd: dir })).status).toBe(0);
    expect(readFileSync(a)).toEqual(readFileSync(at('ab.bf')));

    await bloomkit(['create', at('other.bf'), '-n', '2000', '-p', '0.01', '--kind', 'partitioned'], {
      cwd: dir,
    });
    const mismatch = await bloomkit(['merge', at('m.bf'), a, at('other.bf')], { cwd: dir });
    expect(mismatch.status).toBe(2);
    expect(mismatch.stderr).toMatch(/other\.bf: filters must have the same bits, hashes, seed/);
    await bloomkit(['create', at('std.bf'), '-n', '1000', '-p', '0.01'], { cwd: dir });
    expect((await bloomkit(['merge', at('m.bf'), a, at('std.bf')], { cwd: dir })).stderr).toMatch(
      /a standard filter cannot combine/,
    );
  });

  it('merge - and intersect - write the result to stdout (also as /dev/stdout), byte for byte the file', async () => {
    const a = at('out-a.bf');
    const b = at('out-b.bf');
    for (const [file, key] of [
      [a, 'x'],
      [b, 'y'],
    ] as const) {
      expect((await bloomkit(['create', file, '-n', '1000', '-p', '0.01'], { cwd: dir })).status).toBe(0);
      expect((await bloomkit(['add', file, key, 'both'], { cwd: dir })).status).toBe(0);
    }
    for (const operation of ['merge', 'intersect']) {
      expect((await bloomkit([operation, at(`${operation}-file.bf`), a, b], { cwd: dir })).status).toBe(0);
      const file = readFileSync(at(`${operation}-file.bf`));
      for (const out of ['-', '/dev/stdout']) {
        const run = await bloomkit([operation, out, a, b], { cwd: dir });
        expect([operation, out, run.status, run.stderr]).toEqual([operation, out, 0, '']);
        expect(run.bytes).toEqual(file);
      }
    }
    // No file named "-" was made, and no lock beside one.
    expect(readdirSync(dir).filter((name) => name.includes('-.') || name === '-')).toEqual([]);
  });

  it('a FIFO or a device as the file to write is refused before anything is read, and left as it was', async () => {
    const source = at('plain.bf');
    expect((await bloomkit(['create', source, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
    const fifo = at('planted.fifo');
    execFileSync('mkfifo', [fifo]);
    const refused = (path: string, what: string) =>
      `bloomkit: ${path}: is ${what}, not a regular file; a filter file is replaced by a new file (atomically), so it must be a regular file or absent (merge, intersect and pull write to stdout with -)\n`;
    for (const args of [
      ['merge', fifo, source],
      ['create', fifo, '-n', '100', '-p', '0.01', '--force'],
      ['add', fifo, 'k'],
      ['dedup', '--state', fifo],
    ]) {
      const run = await bloomkit(args, { cwd: dir, input: 'k\n' });
      expect([args[0], run.status, run.stdout, run.stderr]).toEqual([
        args[0],
        2,
        '',
        refused(fifo, 'a FIFO'),
      ]);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }
    const device = await bloomkit(['merge', '/dev/null', source], { cwd: dir });
    expect([device.status, device.stderr]).toEqual([2, refused('/dev/null', 'a device')]);
  });

  it('delete works on counting filters only', async () => {
    const file = at('counting.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01', '--kind', 'counting'], { cwd: dir });
    await bloomkit(['add', file, 'keep', 'drop'], { cwd: dir });
    const deleted = await bloomkit(['delete', '-v', file, 'drop', 'never-added'], { cwd: dir });
    expect([deleted.status, deleted.stdout]).toEqual([1, 'drop\tdeleted\nnever-added\tabsent\n']);
    const filter = CountingBloomFilter.deserialize(readFileSync(file));
    expect([filter.has('keep'), filter.has('drop')]).toEqual([true, false]);
    await bloomkit(['create', at('plain.bf'), '-n', '100', '-p', '0.01'], { cwd: dir });
    const refused = await bloomkit(['delete', at('plain.bf'), 'x'], { cwd: dir });
    expect([refused.status, refused.stderr]).toEqual([
      2,
      `bloomkit: ${at('plain.bf')}: delete needs a counting filter; this one is standard\n`,
    ]);
  });
});

describe('calc', () => {
  it('n and p give the shape create picks; other pairs solve the rest; --table is the classic table', async () => {
    const rows = JSON.parse(
      (await bloomkit(['calc', '-n', '1e6', '-p', '0.01', '--json'], { cwd: dir })).stdout,
    );
    const standard = chooseShape(1e6, 0.01, standardLayout);
    expect(rows[0]).toMatchObject({ layout: 'standard', n: 1e6, m: standard.bits, k: standard.hashes });
    expect(rows.map((r: { layout: string }) => r.layout)).toEqual([
      'standard',
      'partitioned',
      'blocked',
      'cuckoo',
      'fuse8',
    ]);
    const cuckoo = cuckooShape(1e6, 0.01);
    expect(rows[3]).toMatchObject({ n: 1e6, m: cuckoo.buckets * 4 * cuckoo.fingerprintBits, k: 2 });
    expect(rows[3].p).toBeCloseTo(cuckoo.fprAtCapacity, 12);
    // Past what 24-bit fingerprints give, the Bloom layouts alone.
    const tiny = JSON.parse(
      (await bloomkit(['calc', '-n', '1e6', '-p', '1e-9', '--json'], { cwd: dir })).stdout,
    );
    expect(tiny.map((r: { layout: string }) => r.layout)).toEqual(['standard', 'partitioned', 'blocked']);
    const fromM = JSON.parse(
      (await bloomkit(['calc', '-m', String(standard.bits), '-p', '0.01', '--json'], { cwd: dir })).stdout,
    );
    expect(Math.abs(fromM[0].n - 1e6) / 1e6).toBeLessThan(0.001);
    const nm = JSON.parse(
      (await bloomkit(['calc', '-n', '1e6', '-m', String(standard.bits), '--json'], { cwd: dir })).stdout,
    );
    expect(nm[0].k).toBe(7);
    expect(nm[0].p).toBeLessThanOrEqual(0.01);
    const pk = JSON.parse((await bloomkit(['calc', '-p', '0.01', '-k', '7', '--json'], { cwd: dir })).stdout);
    expect(pk[0].bitsPerKey).toBeCloseTo(9.59, 1);
    const table = await bloomkit(['calc', '--table'], { cwd: dir });
    expect(table.stdout.split('\n')[0]).toMatch(/^m\/n\s+k=1\s+k=2/);
    expect(table.stdout).toMatch(/\n10\s.*8\.19e-3\*/);
    const one = await bloomkit(['calc', '-n', '100'], { cwd: dir });
    expect([one.status, one.stderr]).toEqual([
      2,
      'bloomkit: calc: give at least two of --capacity (n), --fpr (p), --bits (m), --hashes (k), or --table\n',
    ]);
  });
});
