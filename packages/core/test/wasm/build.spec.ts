import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

  it('left the committed modules as they are: each file is the one in git (when this is a git checkout)', () => {
    for (const name of readdirSync(`${core}src/wasm`).filter((file) => file.endsWith('-wasm.ts'))) {
      const committed = spawnSync('git', ['show', `HEAD:./src/wasm/${name}`], {
        cwd: core,
        encoding: 'utf8',
      });
      if (committed.status !== 0) return; // not a git checkout (a tarball): the check above is the whole test
      expect(readFileSync(`${core}src/wasm/${name}`, 'utf8')).toBe(committed.stdout);
    }
  });
});
