// The workspace's packages served to a browser without a bundler: one import map generated from the packages'
// manifests, and one static server for it, used by the sizing page (apps/sizer/serve.mjs, `pnpm sizer`) and by the
// browser tests. Plain JavaScript, so `node apps/sizer/serve.mjs` runs it as it is (types: browser.d.mts).
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is packages/testkit/src/browser.mjs). */
export const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The marker an HTML page carries where the server writes the import map. */
export const IMPORT_MAP_MARKER = '<script type="importmap" data-workspace></script>';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
};

/** The browser entry of an `exports` target: a string, or the `import` (else `default`) condition's. */
function entryOf(target) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  return entryOf(target.browser ?? target.import ?? target.default);
}

/** The manifest of the package in `dir`. */
function manifestOf(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** The workspace's packages by name: their directory names under packages/ and manifests. */
function workspacePackages(root) {
  const out = new Map();
  const packagesDir = join(root, 'packages');
  for (const dir of readdirSync(packagesDir).sort()) {
    try {
      const manifest = manifestOf(join(packagesDir, dir));
      out.set(manifest.name, { dir, path: join(packagesDir, dir), manifest });
    } catch {
      // not a package
    }
  }
  return out;
}

/**
 * The import map of the workspace packages `names` and all they depend on (their manifests' `dependencies`, in the
 * closure; private ones, the testkit and the apps, left out): each subpath of a workspace package's `exports` mapped to `/packages/DIR/FILE` (its dist/ is served),
 * each package from outside the workspace (hyparquet) to `/deps/NAME/FILE`, found where Node resolves it from its
 * dependent, whatever the package manager's layout. Returns the map and where each URL prefix is served from.
 */
export function workspaceImportMap(names, root = WORKSPACE_ROOT) {
  const packages = workspacePackages(root);
  const imports = {};
  /** URL prefix → directory on disk. */
  const served = new Map();
  const pending = [...names];
  const seen = new Set();
  while (pending.length > 0) {
    const name = pending.pop();
    if (seen.has(name)) continue;
    seen.add(name);
    const found = packages.get(name);
    if (found === undefined) throw new Error(`workspaceImportMap: no workspace package ${name}`);
    const { dir, path, manifest } = found;
    if (manifest.private) continue; // a test helper or an app: never imported by a page
    served.set(`/packages/${dir}/dist/`, join(path, 'dist'));
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const entry = entryOf(target);
      if (subpath.endsWith('.json') || entry === undefined || !entry.endsWith('.js')) continue;
      imports[name + subpath.slice(1)] = `/packages/${dir}/${entry.replace(/^\.\//, '')}`;
    }
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (packages.has(dependency)) {
        pending.push(dependency);
        continue;
      }
      if (imports[dependency] !== undefined) continue;
      const depDir = realpathSync(join(path, 'node_modules', dependency));
      const dep = manifestOf(depDir);
      const entry = entryOf(dep.exports?.['.'] ?? dep.exports) ?? dep.module ?? dep.main;
      served.set(`/deps/${dependency}/`, depDir);
      imports[dependency] = `/deps/${dependency}/${entry.replace(/^\.\//, '')}`;
    }
  }
  const sorted = Object.fromEntries(Object.entries(imports).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { imports: sorted, served };
}

/**
 * A server of a page and the workspace packages `names` need (their import map: {@link workspaceImportMap}), on
 * loopback once `listen` is called. `page(path)` says what the
 * page's own paths are: a file on disk, `{ body, type }`, or undefined (then the path may be a package's: its
 * `.js` files under a served prefix of {@link workspaceImportMap}; anything else is a 404). An HTML body carrying
 * {@link IMPORT_MAP_MARKER} gets the import map there. It only reads: GET and HEAD without a body; any other method
 * is a 405 and a request with a body a 413, answered at once with the connection closed, so nothing a client sends
 * is read or kept.
 */
export function workspaceServer(names, page, root = WORKSPACE_ROOT) {
  const { imports, served } = workspaceImportMap(names, root);
  const importMap = `<script type="importmap">${JSON.stringify({ imports }, null, 1)}</script>`;
  return createServer(async (request, response) => {
    const refuse = (status, headers = {}) => {
      response.writeHead(status, { ...headers, connection: 'close' });
      response.end(() => request.socket.destroy());
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, { allow: 'GET, HEAD' });
    if (
      request.headers['transfer-encoding'] !== undefined ||
      Number(request.headers['content-length'] ?? 0) > 0
    ) {
      return refuse(413);
    }
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    try {
      let found = page(path);
      if (found === undefined) found = packageFile(served, path);
      if (found === undefined) {
        response.writeHead(404).end();
        return;
      }
      if (typeof found === 'string') {
        found = { body: await readFile(found), type: TYPES[found.slice(found.lastIndexOf('.'))] };
      }
      let body = found.body;
      if (found.type?.startsWith('text/html')) body = String(body).replace(IMPORT_MAP_MARKER, importMap);
      response
        .writeHead(200, {
          'content-type': found.type ?? 'application/octet-stream',
          'cache-control': 'no-store',
        })
        .end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
}

/**
 * The file of a `.js` path under a served prefix (a package's dist/, a dependency's directory), or undefined: no
 * `..`, no `node_modules` below it, no other file type.
 */
function packageFile(served, path) {
  if (path.includes('..') || path.includes('/node_modules/') || !/^\/[\w@/.-]+\.js$/.test(path))
    return undefined;
  for (const [prefix, dir] of served) {
    if (path.startsWith(prefix)) return join(dir, path.slice(prefix.length));
  }
  return undefined;
}
