import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
/** A throwaway kind added by the recipe (filters' test fixture), loaded before the command with `node --import`. */
const TOY = fileURLToPath(new URL('../../filters/test/fixtures/toy-kind.mjs', import.meta.url));

function withToy(args: readonly string[]) {
  const run = spawnSync(process.execPath, ['--import', TOY, BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('a kind the command was never told about', () => {
  it('is created, filled, queried and inspected once it is in the table of kinds', () => {
    const file = join(dir, 'toy.bf');
    expect(withToy(['create', file, '--kind', 'toy', '-n', '1000', '-p', '0.01'])).toMatchObject({
      status: 0,
    });
    expect(withToy(['add', file, 'a', 'b']).status).toBe(0);
    expect(withToy(['has', file, 'a', 'b']).status).toBe(0);
    const info = JSON.parse(withToy(['info', '--json', file]).stdout);
    expect(info).toMatchObject({ kind: 'toy', count: 2, capacity: 1000, targetFpr: 0.01, checksum: 'ok' });
    expect(withToy(['create', '--help']).stdout).toMatch(
      /one of standard, partitioned, counting, scalable,\s+blocked, exceptions,\s+window,\s+parquet,\s+fuse,\s+cuckoo,\s+toy/,
    );
    // Without the kind loaded, the file is refused by its kind id, on one line.
    const bare = spawnSync(process.execPath, [BIN, 'info', file], { cwd: dir, encoding: 'utf8' });
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(
      /^bloomkit: \S+toy\.bf: unknown filter kind 200 \(known: 1 standard, .*5 blocked, 6 exceptions, 7 window, 8 parquet, 9 fuse, 10 cuckoo\)\n$/,
    );
  });
});
