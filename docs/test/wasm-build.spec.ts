import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const packages = new URL('../../packages/', import.meta.url).pathname;
const script = new URL('../../scripts/build-wasm.mjs', import.meta.url).pathname;

/** The packages with WebAssembly sources: each builds them with the shared scripts/build-wasm.mjs. */
const withWasm = readdirSync(packages).filter((name) => {
  const dir = `${packages}${name}/src/wasm`;
  return existsSync(dir) && readdirSync(dir).some((file) => file.endsWith('.wat'));
});

describe('the WebAssembly build', () => {
  it('finds the packages that have kernels (core, window)', () => {
    expect(withWasm).toEqual(expect.arrayContaining(['core', 'window']));
  });

  it("keeps a kind's own kernels with the kind: core has no window or XXH64 (Parquet's hash) source", () => {
    const coreFiles = readdirSync(`${packages}core/src`, { recursive: true }).map(String);
    expect(coreFiles.filter((file) => /window|xxh/i.test(file))).toEqual([]);
    expect(withWasm).toEqual(expect.arrayContaining(['parquet']));
  });

  it.each(withWasm)(
    '%s: every module is what its source in the working tree compiles to, with the pinned wabt',
    (name) => {
      // The same check the build makes: a .wat edited and not rebuilt fails here, committed or not.
      const run = spawnSync(process.execPath, [script, '--check'], {
        cwd: `${packages}${name}`,
        encoding: 'utf8',
      });
      expect([run.status, run.stderr]).toEqual([0, '']);
    },
  );

  it.each(withWasm)('%s: its build calls the shared script and every module has its source', (name) => {
    const manifest = JSON.parse(readFileSync(`${packages}${name}/package.json`, 'utf8')) as {
      scripts: { build: string };
    };
    expect(manifest.scripts.build.startsWith('node ../../scripts/build-wasm.mjs && ')).toBe(true);
    const files = readdirSync(`${packages}${name}/src/wasm`);
    for (const module of files.filter((file) => file.endsWith('-wasm.ts'))) {
      expect(files).toContain(module.replace(/-wasm\.ts$/, '.wat'));
    }
  });
});
