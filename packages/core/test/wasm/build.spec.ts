import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const core = new URL('../../', import.meta.url).pathname;

describe('the WebAssembly build', () => {
  it("reproduces the committed module from its source with the pinned wabt (the build's own check)", () => {
    const run = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], {
      cwd: core,
      encoding: 'utf8',
    });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });

  it('left the committed module as it is: the file is the one in git (when this is a git checkout)', () => {
    const committed = spawnSync('git', ['show', 'HEAD:./src/wasm/crc32c-wasm.ts'], {
      cwd: core,
      encoding: 'utf8',
    });
    if (committed.status !== 0) return; // not a git checkout (a tarball): the check above is the whole test
    expect(readFileSync(`${core}src/wasm/crc32c-wasm.ts`, 'utf8')).toBe(committed.stdout);
  });
});
