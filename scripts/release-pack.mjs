#!/usr/bin/env node
// The release build: tarballs of every public package with the versions a release would give them.
//
//   node scripts/release-pack.mjs [--out <dir>]      (or: pnpm release:pack)
//
// It works on a staged copy of the working tree (tracked and untracked, not ignored), so the repository itself is
// never changed: install from the local store, `changeset version` (the fixed group moves together and the pending
// changesets become each package's CHANGELOG.md), build, then `pnpm pack`, which turns every `workspace:*`
// dependency into the exact version just given to that package (private packages, the testkit, are dropped from
// the manifests first: a published manifest names only published packages). The tarballs and a manifest.json (name, version,
// file, dependencies) land in <dir> (default `release/`). Publishing them is `npm publish <file>` for each, in the
// manifest's order (dependencies first).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outFlag = args.indexOf('--out');
const out = resolve(outFlag >= 0 && args[outFlag + 1] ? args[outFlag + 1] : join(root, 'release'));
const pnpm = ['npx', '--yes', 'pnpm@9.15.9'];

function run(command, cwd) {
  const [file, ...rest] = command;
  // turbo's telemetry off, as every root script has it.
  const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
  const result = spawnSync(file, rest, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`release-pack: \`${command.join(' ')}\` failed in ${cwd} (exit ${result.status})`);
  }
  return result.stdout;
}

const stage = mkdtempSync(join(tmpdir(), 'bloomkit-release-'));
try {
  const listed = run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], root);
  for (const file of listed.split('\0')) {
    if (file === '' || !existsSync(join(root, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    copyFileSync(join(root, file), join(stage, file));
  }
  process.stderr.write(`release-pack: staged in ${stage}\n`);
  run([...pnpm, 'install', '--frozen-lockfile', '--prefer-offline'], stage);
  run([...pnpm, 'exec', 'changeset', 'version'], stage);
  run(
    [...pnpm, 'exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only'],
    stage,
  );

  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const packages = readdirSync(join(stage, 'packages'))
    .map((dir) => ({
      dir: join(stage, 'packages', dir),
      json: readJson(join(stage, 'packages', dir, 'package.json')),
    }))
    .filter(({ json }) => json.private !== true);
  const manifest = [];
  const privateNames = privatePackages(stage);
  for (const { dir, json } of packages) dropPrivate(dir, json, privateNames);
  for (const { dir } of dependenciesFirst(packages)) {
    const packed = run([...pnpm, 'pack', '--pack-destination', out], dir)
      .trim()
      .split('\n')
      .pop();
    const file = packed.slice(packed.lastIndexOf('/') + 1);
    // The manifest as packed: workspace:* replaced by versions.
    const shipped = JSON.parse(run(['tar', '-xzOf', join(out, file), 'package/package.json'], out));
    manifest.push({
      name: shipped.name,
      version: shipped.version,
      file,
      dependencies: shipped.dependencies ?? {},
    });
    process.stderr.write(`release-pack: ${file}\n`);
  }
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(`release-pack: ${manifest.length} tarballs in ${out}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

/** The names of the workspace's private packages (the testkit, the apps): never published. */
function privatePackages(stage) {
  const names = new Set();
  for (const parent of ['packages', 'apps']) {
    if (!existsSync(join(stage, parent))) continue;
    for (const dir of readdirSync(join(stage, parent))) {
      const file = join(stage, parent, dir, 'package.json');
      if (!existsSync(file)) continue;
      const json = readJson(file);
      if (json.private === true) names.add(json.name);
    }
  }
  return names;
}

/**
 * Drops the private packages from a staged manifest's dependency lists before it is packed: a published manifest
 * names no package that is not published (the testkit is a devDependency of the libraries, for their tests only).
 */
function dropPrivate(dir, json, privateNames) {
  let changed = false;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const name of Object.keys(json[field] ?? {})) {
      if (!privateNames.has(name)) continue;
      delete json[field][name];
      changed = true;
    }
    if (json[field] !== undefined && Object.keys(json[field]).length === 0) delete json[field];
  }
  if (changed) writeFileSync(join(dir, 'package.json'), `${JSON.stringify(json, null, 2)}\n`);
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The packages ordered so each comes after the workspace packages it depends on (the order to publish in). */
function dependenciesFirst(packages) {
  const byName = new Map(packages.map((entry) => [entry.json.name, entry]));
  const ordered = [];
  const seen = new Set();
  const visit = (entry) => {
    if (seen.has(entry.json.name)) return;
    seen.add(entry.json.name);
    for (const name of Object.keys(entry.json.dependencies ?? {})) {
      const dependency = byName.get(name);
      if (dependency !== undefined) visit(dependency);
    }
    ordered.push(entry);
  };
  for (const entry of [...packages].sort((a, b) => a.json.name.localeCompare(b.json.name))) visit(entry);
  return ordered;
}
