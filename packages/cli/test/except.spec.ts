import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}\n`).join('');

describe('bloomkit except', () => {
  it('turns a blacklist file into one with exceptions: flagged good keys answer absent, bad keys present', async () => {
    const file = join(dir, 'blacklist.bloom');
    expect(
      (await bloomkit(['create', file, '--capacity', '300', '--fpr', '0.05', '--seed', '3'], { cwd: dir }))
        .status,
    ).toBe(0);
    expect(
      (await bloomkit(['add', file, '--from', '-', '-q'], { cwd: dir, input: lines('bad', 300) })).status,
    ).toBe(0);
    const probe = await bloomkit(['has', file, '--from', '-', '-v'], {
      cwd: dir,
      input: lines('good', 3000),
    });
    const flagged = probe.stdout
      .split('\n')
      .filter((line) => line.endsWith('\tpresent'))
      .map((line) => line.split('\t')[0]!);
    expect(flagged.length).toBeGreaterThan(50);

    const except = await bloomkit(['except', file, '--from', '-', '-v'], {
      cwd: dir,
      input: `${flagged.join('\n')}\nnever-flagged\n`,
    });
    expect(except.status).toBe(1); // one key was absent already: grep's status, as for has
    expect(except.stdout).toContain(`${flagged[0]}\texcepted\n`);
    expect(except.stdout).toContain('never-flagged\tabsent\n');

    expect(
      (await bloomkit(['has', file, '--from', '-'], { cwd: dir, input: lines('good', 3000) })).status,
    ).toBe(1);
    const again = await bloomkit(['has', file, '--from', '-', '-v'], {
      cwd: dir,
      input: lines('good', 3000),
    });
    expect(again.stdout).not.toContain('\tpresent');
    expect(
      (await bloomkit(['has', file, '--from', '-'], { cwd: dir, input: lines('bad', 300) })).status,
    ).toBe(0);

    // The file is kind 6 over the same standard filter, readable by the library.
    const read = ExceptionFilter.deserialize(new Uint8Array(readFileSync(file)));
    expect(read.filter).toBeInstanceOf(StandardBloomFilter);
    expect(read.exceptionCount).toBe(flagged.length);
    const info = JSON.parse((await bloomkit(['info', '--json', file], { cwd: dir })).stdout);
    expect(info).toMatchObject({
      kind: 'exceptions',
      count: 300 - (300 - read.count),
      facts: { nestedKind: 'standard', exceptionCount: flagged.length, exceptionBytes: read.exceptionBytes },
    });
    expect((await bloomkit(['info', file], { cwd: dir })).stdout).toMatch(/exceptions +\d+ \(.* in the file/);

    // add lifts an exception; --remove takes one off the list.
    expect((await bloomkit(['add', file, flagged[0]!, '-v'], { cwd: dir })).stdout).toBe(
      `${flagged[0]}\tadded\n`,
    );
    expect((await bloomkit(['has', file, flagged[0]!], { cwd: dir })).status).toBe(0);
    const removed = await bloomkit(['except', '--remove', file, flagged[1]!, 'not-there', '-v'], {
      cwd: dir,
    });
    expect(removed.stdout).toBe(`${flagged[1]}\tremoved\nnot-there\tnot-listed\n`);
    expect((await bloomkit(['has', file, flagged[1]!], { cwd: dir })).status).toBe(0);
  });

  it('refuses --remove on a file without exceptions, and delete on exceptions over a filter that cannot', async () => {
    const file = join(dir, 'plain.bloom');
    await bloomkit(['create', file, '--capacity', '100', '--fpr', '0.01'], { cwd: dir });
    const run = await bloomkit(['except', '--remove', file, 'x'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/has no exception list/);
    expect((await bloomkit(['except', file, 'x'], { cwd: dir })).status).toBe(1); // absent: nothing recorded, but kind 6 now
    const del = await bloomkit(['delete', file, 'x'], { cwd: dir });
    expect(del.status).toBe(2);
    expect(del.stderr).toMatch(/delete needs a counting filter; this one is exceptions/);
  });
});
