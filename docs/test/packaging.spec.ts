import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Packaging checked, not remembered: what each package's source imports is what its package.json declares (a strict
// installer fails at run time on anything else), the changesets' fixed group is exactly the public packages, and
// `@bloomkit/core/internal` is imported only by the packages listed here.

const root = new URL('../../', import.meta.url);
const packagesDir = new URL('packages/', root);

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** The root's devDependencies: the tools every workspace package may use in its tests. */
const workspaceTools = Object.keys(
  (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Manifest).devDependencies ?? {},
);

const packages = readdirSync(packagesDir)
  .filter(
    (name) => statSync(new URL(`${name}/package.json`, packagesDir), { throwIfNoEntry: false }) !== undefined,
  )
  .map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(new URL(`${dir}/package.json`, packagesDir), 'utf8')) as Manifest,
  }));

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The bare module specifiers a source file imports or re-exports (static and dynamic), with their line. */
function importsOf(text: string): { specifier: string; line: number }[] {
  const out: { specifier: string; line: number }[] = [];
  const pattern =
    /(?:^|\s)(?:import|export)\s[^'";]*?from\s*'([^']+)'|(?:^|\s)import\s*\(\s*'([^']+)'\s*\)|^import\s+'([^']+)'/gm;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? match[3]!;
    if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
    const at = match.index + match[0].indexOf(specifier);
    out.push({ specifier, line: text.slice(0, at).split('\n').length });
  }
  return out;
}

/** The package a bare specifier names: `@scope/name` or `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Undeclared imports of one package's source: `file:line specifier` for each. */
function undeclaredImports(dir: string, manifest: Manifest): string[] {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    // A private package (the test kit) is never installed from the registry: the workspace's tools serve it.
    ...(manifest.private === true ? [...Object.keys(manifest.devDependencies ?? {}), ...workspaceTools] : []),
  ]);
  const out: string[] = [];
  const src = join(packagesDir.pathname, dir, 'src');
  for (const file of sources(src)) {
    for (const { specifier, line } of importsOf(readFileSync(file, 'utf8'))) {
      if (!declared.has(packageOf(specifier))) out.push(`${file.slice(src.length + 1)}:${line} ${specifier}`);
    }
  }
  return out;
}

/**
 * The packages whose source imports `@bloomkit/core/internal` (the engine, codecs and kernel memory), exactly: the
 * list is checked both ways, so it is the one place that says who uses it. Everything else takes its parts from
 * `@bloomkit/core/kit`, which is public.
 */
const INTERNAL_IMPORTERS = [
  'counting',
  'cuckoo',
  'exceptions',
  'fuse',
  'parquet',
  'redis',
  'scalable',
  'window',
];

describe('packaging', () => {
  for (const { dir, manifest } of packages) {
    it(`${manifest.name}: its source imports only what its package.json declares`, () => {
      expect(undeclaredImports(dir, manifest)).toEqual([]);
    });
  }

  it('finds an undeclared import, static, re-exported or dynamic, with its line', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '@bloomkit/partitioned';",
      "export { c } from 'lodash/fp';",
      "const d = await import('left-pad');",
      "import 'side-effect';",
      "import { e } from 'node:fs';",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      { specifier: '@bloomkit/partitioned', line: 2 },
      { specifier: 'lodash/fp', line: 3 },
      { specifier: 'left-pad', line: 4 },
      { specifier: 'side-effect', line: 5 },
    ]);
  });

  it('no packed tarball lies in a package or app: release tarballs are built into release/, never beside the code', () => {
    const tarballs = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return tarballs(path);
        return entry.name.endsWith('.tgz') ? [path] : [];
      });
    const top = fileURLToPath(root);
    expect([...tarballs(join(top, 'packages')), ...tarballs(join(top, 'apps'))]).toEqual([]);
  });

  it("every root script that runs turbo opts out of turbo's telemetry, for a newcomer as for CI", () => {
    const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const runsTurbo = Object.entries(scripts).filter(([, command]) => /\bturbo run\b/.test(command));
    expect(runsTurbo.length).toBeGreaterThan(4);
    for (const [name, command] of runsTurbo) {
      for (const part of command.split('&&').filter((one) => /\bturbo run\b/.test(one))) {
        expect(part.trim(), name).toMatch(/^TURBO_TELEMETRY_DISABLED=1 turbo run /);
      }
    }
    const pack = readFileSync(new URL('scripts/release-pack.mjs', root), 'utf8');
    expect(pack).toContain("TURBO_TELEMETRY_DISABLED: '1'");
  });

  it("the changesets' fixed group is exactly the public packages", () => {
    const config = JSON.parse(readFileSync(new URL('.changeset/config.json', root), 'utf8')) as {
      fixed: string[][];
    };
    const published = packages
      .filter(({ manifest }) => manifest.private !== true)
      .map(({ manifest }) => manifest.name)
      .sort();
    expect(config.fixed).toHaveLength(1);
    expect([...config.fixed[0]!].sort()).toEqual(published);
  });

  it('only the listed packages import @bloomkit/core/internal', () => {
    const importers = packages
      .filter(({ dir }) =>
        sources(join(packagesDir.pathname, dir, 'src')).some((file) =>
          importsOf(readFileSync(file, 'utf8')).some(
            ({ specifier }) => specifier === '@bloomkit/core/internal',
          ),
        ),
      )
      .map(({ dir }) => dir)
      .sort();
    expect(importers).toEqual(INTERNAL_IMPORTERS);
  });

  it("no README but core's own and CONTRIBUTING sends a reader to @bloomkit/core/internal", () => {
    const readmes = [
      'README.md',
      ...packages.map(({ dir }) => `packages/${dir}/README.md`),
      ...readdirSync(new URL('apps/', root)).map((app) => `apps/${app}/README.md`),
    ].filter((path) => path !== 'packages/core/README.md' && existsSync(new URL(path, root)));
    const pointing = readmes.filter((path) =>
      readFileSync(new URL(path, root), 'utf8').includes('@bloomkit/core/internal'),
    );
    expect(pointing).toEqual([]);
  });
});
