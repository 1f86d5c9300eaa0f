import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisProcess, startRedis } from '@bloomkit/testkit/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfilePins } from './lockfile-pins.js';

/**
 * The release build as a user meets it: `pnpm release:pack` makes the tarballs, and each one is installed alone
 * into a fresh project (its @bloomkit dependencies come from the other tarballs, standing in for the registry;
 * everything else from the registry), then the Quick start of the README it ships is compiled by TypeScript
 * (`nodenext`, and `bundler` for type checking) and run as ESM and through `require`, printing what its comments say.
 */

interface Packed {
  name: string;
  version: string;
  file: string;
  dependencies: Record<string, string>;
}

const root = new URL('../..', import.meta.url).pathname;
/** How .changeset/changelog.cjs quotes a dependency's changeset: its first sentence. */
const { firstSentence } = createRequire(import.meta.url)(join(root, '.changeset/changelog.cjs')) as {
  firstSentence(summary: string): string;
};
const work = mkdtempSync(join(tmpdir(), 'bloomkit-packs-'));
const release = join(work, 'release');
let manifest: Packed[] = [];
let redis: RedisProcess;

/** Runs a command without blocking this worker (a long synchronous call starves vitest's own messages). */
function run(file: string, args: string[], cwd: string, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // stdin is a pipe only when there is input: a child that exits without reading it would fail the write (EPIPE).
    const child = spawn(file, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => {
      if (status === 0) resolve(stdout);
      else reject(new Error(`\`${file} ${args.join(' ')}\` in ${cwd} exited ${status}:\n${stdout}${stderr}`));
    });
    if (input !== undefined) {
      child.stdin!.on('error', reject);
      child.stdin!.end(input);
    }
  });
}

beforeAll(async () => {
  await run(process.execPath, [join(root, 'scripts/release-pack.mjs'), '--out', release], root);
  manifest = JSON.parse(readFileSync(join(release, 'manifest.json'), 'utf8'));
  // TypeScript and Node's types for the examples, where every project below finds them (as a user's would).
  const fromRoot = createRequire(join(root, 'package.json'));
  mkdirSync(join(work, 'node_modules/@types'), { recursive: true });
  symlinkSync(
    realpathSync(join(fromRoot.resolve('typescript/package.json'), '..')),
    join(work, 'node_modules/typescript'),
  );
  symlinkSync(realpathSync(join(root, 'node_modules/@types/node')), join(work, 'node_modules/@types/node'));
  redis = await startRedis();
}, 600_000);

afterAll(() => {
  redis?.kill();
  rmSync(work, { recursive: true, force: true });
});

/** Registry packages at the lockfile's versions, unless `BLOOMKIT_RELEASE_NEWEST=1` asks for the newest in range. */
const newest = process.env.BLOOMKIT_RELEASE_NEWEST === '1';

/**
 * What the Redis README tells a TypeScript user to add beside ioredis (its 6.1 declarations import `redis-errors`,
 * which ships no types): installed with the newest versions only, where ioredis resolves past the pinned 6.0.0.
 */
const README_TYPES: Record<string, string[]> = { '@bloomkit/redis': ['@types/redis-errors'] };

/**
 * A fresh project with `name`'s tarball installed alone; the other tarballs stand in for the registry, and every
 * registry package comes at the version the lockfile pins (lockfile-pins.ts), or the newest in range.
 */
async function installAlone(entry: Packed): Promise<string> {
  const dir = join(work, 'projects', entry.name.replace('@bloomkit/', ''));
  mkdirSync(dir, { recursive: true });
  const tarballs = Object.fromEntries(
    manifest
      .filter((other) => other.name !== entry.name)
      .map((other) => [other.name, `file:${join(release, other.file)}`]),
  );
  const pins = lockfilePins(
    root,
    [...closure(entry.name)].map((name) => name.replace('@bloomkit/', '')),
  );
  const dependencies = newest ? {} : pins.direct;
  const overrides = newest ? tarballs : { ...tarballs, ...pins.versions };
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'fresh', private: true, dependencies, overrides }, null, 2),
  );
  const extra = newest ? (README_TYPES[entry.name] ?? []) : [];
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', join(release, entry.file), ...extra],
    dir,
  );
  if (!newest) {
    // What the lockfile pins is what was installed: a pin that npm did not honour would test another version.
    for (const [name, version] of Object.entries(pins.versions)) {
      const installed = join(dir, 'node_modules', name, 'package.json');
      if (existsSync(installed))
        expect(JSON.parse(readFileSync(installed, 'utf8')).version, name).toBe(version);
    }
  }
  return dir;
}

/** The @bloomkit packages a package needs, itself included, from the versions the tarballs declare. */
function closure(name: string, into = new Set<string>()): Set<string> {
  into.add(name);
  const entry = manifest.find((other) => other.name === name)!;
  for (const dependency of Object.keys(entry.dependencies)) {
    if (dependency.startsWith('@bloomkit/') && !into.has(dependency)) closure(dependency, into);
  }
  return into;
}

/** The README's first ```ts block, and what its `console.log(...) // → x` lines say they print. */
function quickStart(readme: string): { source: string; expected: string[] } {
  const match = /```ts\n([\s\S]*?)```/.exec(readme);
  if (match === null) throw new Error('no ```ts block');
  const source = match[1]!.replace('port: 6379 }', `port: ${redis.port} }`);
  const expected = [...source.matchAll(/console\.log\(.*\/\/ → (.*)$/gm)].map((found) => found[1]!.trim());
  return { source, expected };
}

/** The same code as a CommonJS module: the imports stay on top (TypeScript makes them `require` calls). */
function asCommonJs(source: string): string {
  const imports = [...source.matchAll(/^import [\s\S]*? from '[^']+';$/gm)].map((found) => found[0]);
  const body = source.replace(/^import [\s\S]*? from '[^']+';$/gm, '');
  return `${imports.join('\n')}\nvoid (async () => {\n${body}\n})();\n`;
}

function tsconfig(options: Record<string, unknown>, files = ['example.mts', 'example.cts']) {
  return JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', skipLibCheck: false, ...options },
    files,
  });
}

/**
 * The TypeScript set-ups a project may have, beside `nodenext` (which compiles and runs above): each must type-check
 * the example, except the one the root README documents as unsupported (TypeScript settings), a CommonJS file under
 * `node16`, which must fail with exactly the error it quotes (TS1479: `node16` does not know that Node 20.19+
 * can require an ES module; `nodenext` does).
 */
const SETUPS: { name: string; options: Record<string, unknown>; files: string[]; fails?: string }[] = [
  { name: 'bundler', options: { module: 'esnext', moduleResolution: 'bundler' }, files: ['example.mts'] },
  { name: 'node10', options: { module: 'commonjs', moduleResolution: 'node10' }, files: ['example.ts'] },
  { name: 'node16-esm', options: { module: 'node16', moduleResolution: 'node16' }, files: ['example.mts'] },
  {
    name: 'node16-cjs',
    options: { module: 'node16', moduleResolution: 'node16' },
    files: ['example.cts'],
    fails: 'error TS1479',
  },
];

describe('pnpm release:pack', () => {
  it('packs every public package at one version, with real versions for its bloomkit dependencies', async () => {
    const names = readdirSync(join(root, 'packages'))
      .map((dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')))
      .filter((json) => json.private !== true)
      .map((json) => json.name as string);
    expect(manifest.map((entry) => entry.name).sort()).toEqual(names.sort());
    const privateNames = ['packages', 'apps'].flatMap((parent) =>
      readdirSync(join(root, parent))
        .map((dir) => JSON.parse(readFileSync(join(root, parent, dir, 'package.json'), 'utf8')))
        .filter((json) => json.private === true)
        .map((json) => json.name as string),
    );
    expect(privateNames).toContain('@bloomkit/testkit');
    const versions = new Set(manifest.map((entry) => entry.version));
    expect(versions.size).toBe(1);
    const [version] = versions;
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(version).not.toBe('0.0.0');
    for (const entry of manifest) {
      for (const [name, range] of Object.entries(entry.dependencies)) {
        expect(range).not.toMatch(/^workspace:/);
        if (name.startsWith('@bloomkit/')) expect(range).toBe(version);
      }
      // Dependencies come before the packages that need them: the order to publish in.
      const at = manifest.indexOf(entry);
      for (const name of Object.keys(entry.dependencies)) {
        if (name.startsWith('@bloomkit/'))
          expect(manifest.findIndex((other) => other.name === name)).toBeLessThan(at);
      }
      // A published manifest names only published packages (the private testkit is dropped from devDependencies).
      const shipped = JSON.parse(
        await run('tar', ['-xzOf', join(release, entry.file), 'package/package.json'], release),
      ) as Record<string, Record<string, string> | undefined>;
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const name of Object.keys(shipped[field] ?? {})) {
          expect(privateNames, `${entry.name} ${field}`).not.toContain(name);
        }
      }
      const files = (await run('tar', ['-tzf', join(release, entry.file)], release)).split('\n');
      expect(files).toEqual(
        expect.arrayContaining(['package/README.md', 'package/LICENSE', 'package/CHANGELOG.md']),
      );
    }
  });

  it("versions every pending changeset into the CHANGELOG.md of each package it names, under the release's version", async () => {
    const pending = readdirSync(join(root, '.changeset'))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .map((file) => {
        const text = readFileSync(join(root, '.changeset', file), 'utf8');
        const [, front, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)!;
        const packages = [...front!.matchAll(/^"(@bloomkit\/[\w-]+)": (major|minor|patch)$/gm)].map(
          (m) => m[1]!,
        );
        // Its first words, as a changelog entry begins (changesets keep the text, folding nothing).
        return { file, packages, body: body!, opening: body!.trim().split('\n')[0]!.slice(0, 60) };
      });
    expect(pending.length).toBeGreaterThan(10);
    for (const entry of manifest) {
      const changelog = await run(
        'tar',
        ['-xzOf', join(release, entry.file), 'package/CHANGELOG.md'],
        release,
      );
      expect(changelog, entry.name).toContain(`## ${entry.version}`);
      for (const change of pending.filter((one) => one.packages.includes(entry.name)))
        expect(changelog, `${entry.name}: ${change.file}`).toContain(change.opening);
      // What changed for this package's users through its dependencies, never a bare dependency line
      // (.changeset/changelog.cjs): each changeset behind a dependency that does not name the package, once.
      expect(changelog, entry.name).not.toMatch(/Updated dependencies|^\s+- @bloomkit\/[\w-]+@/m);
      const dependencies = Object.keys(entry.dependencies).filter((name) => name.startsWith('@bloomkit/'));
      for (const change of pending.filter(
        (one) =>
          !one.packages.includes(entry.name) && one.packages.some((name) => dependencies.includes(name)),
      )) {
        const through = changelog.split('\n').filter((line) => line.startsWith('- Through `'));
        const cited = through.filter((line) => line.endsWith(`: ${firstSentence(change.body)}`));
        expect(cited.length, `${entry.name}: ${change.file}`).toBe(1);
      }
    }
  });

  const libraries = readdirSync(join(root, 'packages')).filter((dir) => {
    const json = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    return json.private !== true && json.bin === undefined;
  });

  it.each(libraries)(
    '@bloomkit/%s installs alone and its README example runs under ESM, require and TypeScript',
    async (dir) => {
      const entry = manifest.find((other) => other.name === `@bloomkit/${dir}`)!;
      const project = await installAlone(entry);
      const installed = readdirSync(join(project, 'node_modules/@bloomkit')).map(
        (name) => `@bloomkit/${name}`,
      );
      expect(installed.sort()).toEqual([...closure(entry.name)].sort());

      const { source, expected } = quickStart(
        readFileSync(join(project, 'node_modules', entry.name, 'README.md'), 'utf8'),
      );
      expect(expected.length).toBeGreaterThan(0);
      writeFileSync(join(project, 'example.mts'), source);
      writeFileSync(join(project, 'example.cts'), asCommonJs(source));
      writeFileSync(
        join(project, 'tsconfig.json'),
        tsconfig({ module: 'nodenext', moduleResolution: 'nodenext' }),
      );
      writeFileSync(join(project, 'example.ts'), asCommonJs(source));
      const tsc = join(work, 'node_modules/typescript/bin/tsc');
      await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
      // The other set-ups, two at a time (each tsc is a few seconds of one core).
      for (let at = 0; at < SETUPS.length; at += 2) {
        await Promise.all(
          SETUPS.slice(at, at + 2).map(async (setup) => {
            const config = `tsconfig.${setup.name}.json`;
            writeFileSync(join(project, config), tsconfig({ ...setup.options, noEmit: true }, setup.files));
            const checked = run(process.execPath, [tsc, '-p', config], project);
            if (setup.fails === undefined) await checked;
            else await expect(checked, setup.name).rejects.toThrow(setup.fails);
          }),
        );
      }
      for (const compiled of ['example.mjs', 'example.cjs']) {
        const printed = (await run(process.execPath, [compiled], project)).trimEnd().split('\n');
        expect(printed, compiled).toEqual(expected);
      }
    },
    300_000,
  );

  it('@bloomkit/cli installs alone and its bin runs', async () => {
    const entry = manifest.find((other) => other.name === '@bloomkit/cli')!;
    const project = await installAlone(entry);
    const bin = join(project, 'node_modules/.bin/bloomkit');
    expect((await run(bin, ['--version'], project)).trim()).toBe(entry.version);
    expect(await run(bin, ['dedup'], project, 'b\na\nb\nc\na\n')).toBe('b\na\nc\n');
  });
});
