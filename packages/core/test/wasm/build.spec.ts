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

  it('left a committed module as it is when its source is as committed (when this is a git checkout)', () => {
    // The build rewrites a module whose bytes differ from its source's; in a clean checkout nothing may change. A
    // source edited in the working tree is the check above's to judge, against the module beside it.
    const committed = (path: string) =>
      spawnSync('git', ['show', `HEAD:./${path}`], { cwd: core, encoding: 'utf8' });
    for (const name of readdirSync(`${core}src/wasm`).filter((file) => file.endsWith('-wasm.ts'))) {
      const source = `src/wasm/${name.replace(/-wasm\.ts$/, '.wat')}`;
      const sourceInGit = committed(source);
      if (sourceInGit.status !== 0) return; // not a git checkout (a tarball), or a new source: the check above holds
      if (sourceInGit.stdout !== readFileSync(`${core}${source}`, 'utf8')) continue;
      expect(readFileSync(`${core}src/wasm/${name}`, 'utf8')).toBe(committed(`src/wasm/${name}`).stdout);
    }
  });
});
