import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The versions the lockfile pins for the registry packages a released tarball needs, so that the release test
 * installs what the repository was tested with and turns red on bloomkit's change, never on a dependency's new
 * release alone (ioredis 6.1.0, published after 6.0.0 was pinned, ships declarations that import an untyped
 * module). `BLOOMKIT_RELEASE_NEWEST=1` turns the pins off: the same test then installs the newest versions the
 * declared ranges allow, as a user would today, and reports what they break (`pnpm test:newest`).
 *
 * The pins: each third-party dependency or peer dependency of a package at the version pnpm installed for it in
 * this workspace (`packages/<dir>/node_modules/<name>`, the lockfile's resolution), then, through the lockfile's
 * `snapshots:` section, every package those need, at the versions listed there. A name met at two versions is
 * left to npm (an npm override is one version a name); `conflicts` lists such names.
 */
export interface Pins {
  /** name → exact version, for package.json's `overrides`. */
  versions: Record<string, string>;
  /** The third-party names that a package names directly (dependencies and peers), with their pinned versions. */
  direct: Record<string, string>;
  conflicts: string[];
}

/** The `snapshots:` section of pnpm-lock.yaml (lockfile 9): `name@version` → its dependencies, name → version. */
export function lockfileSnapshots(lockfile: string): Map<string, Map<string, string>> {
  const snapshots = new Map<string, Map<string, string>>();
  const start = lockfile.indexOf('\nsnapshots:\n');
  if (start < 0) throw new Error('lockfile-pins: pnpm-lock.yaml has no snapshots section');
  let current: Map<string, string> | undefined;
  let inDependencies = false;
  for (const line of lockfile.slice(start + 12).split('\n')) {
    const entry = /^ {2}'?([^' ].*?)'?:(?: \{\})?$/.exec(line);
    if (entry !== null) {
      current = new Map();
      snapshots.set(stripPeers(entry[1]!), current);
      inDependencies = false;
      continue;
    }
    const section = /^ {4}(\w+):$/.exec(line);
    if (section !== null) {
      inDependencies = section[1] === 'dependencies' || section[1] === 'optionalDependencies';
      continue;
    }
    const dependency = /^ {6}'?([^':]+)'?: (\S+)$/.exec(line);
    if (dependency !== null && inDependencies && current !== undefined)
      current.set(dependency[1]!, stripPeers(dependency[2]!));
  }
  return snapshots;
}

/** `debug@4.4.3(supports-color@8.1.1)` → `debug@4.4.3`: the peer suffix pnpm adds to a resolution. */
function stripPeers(spec: string): string {
  const open = spec.indexOf('(');
  return open < 0 ? spec : spec.slice(0, open);
}

/** The pins for the packages in `dirs` (folders under packages/). */
export function lockfilePins(root: string, dirs: string[]): Pins {
  const snapshots = lockfileSnapshots(readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8'));
  const seen = new Map<string, Set<string>>();
  const direct: Record<string, string> = {};
  const visit = (name: string, version: string) => {
    const versions = seen.get(name) ?? new Set<string>();
    if (versions.has(version)) return;
    versions.add(version);
    seen.set(name, versions);
    for (const [child, childVersion] of snapshots.get(`${name}@${version}`) ?? []) visit(child, childVersion);
  };
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    const named = {
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    };
    for (const name of Object.keys(named).filter((one) => !one.startsWith('@bloomkit/'))) {
      const installed = realpathSync(join(root, 'packages', dir, 'node_modules', name));
      const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
      direct[name] = version;
      visit(name, version);
    }
  }
  const versions: Record<string, string> = {};
  const conflicts: string[] = [];
  for (const [name, found] of seen) {
    if (found.size === 1) versions[name] = [...found][0]!;
    else conflicts.push(name);
  }
  return { versions, direct, conflicts };
}
