#!/usr/bin/env node
// Serves the sizer page and the built packages it loads through its import map, on loopback: `pnpm sizer` from
// the repository's root builds them and runs this. Only the page's own files, the packages' dist/*.js and the files
// of the packages they depend on from outside the workspace (hyparquet) are served; every other path is a 404.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workspaceServer } from '@bloomkit/testkit/browser';

const PAGE = fileURLToPath(new URL('./', import.meta.url));

/** The workspace packages the page imports: its own dependencies (the import map holds them and theirs). */
const PACKAGES = Object.keys(JSON.parse(readFileSync(`${PAGE}package.json`, 'utf8')).dependencies).filter(
  (name) => name.startsWith('@bloomkit/'),
);

/** The page's own file a request path names, or undefined (then a package's file, or a 404). */
function pageFile(path) {
  if (path === '/' || path === '/index.html') return `${PAGE}index.html`;
  if (path === '/style.css') return `${PAGE}style.css`;
  if (/^\/dist\/[\w-]+\.js$/.test(path)) return `${PAGE}${path.slice(1)}`;
  return undefined;
}

/**
 * A server for the page; call `listen` on it. The page's files, and the built packages it loads through the import
 * map that the server generates from the workspace's manifests into the page (the testkit's workspaceServer). It
 * only reads: GET and HEAD, without a body. Any other method is a 405 and a request that carries a body a 413, both
 * answered at once with the connection closed, so nothing a client sends is read or kept.
 */
export function sizerServer() {
  return workspaceServer(PACKAGES, pageFile);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!existsSync(`${PAGE}dist/main.js`)) {
    process.stderr.write('sizer: the page is not built; run `pnpm sizer` from the repository root\n');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 8080);
  const host = process.env.HOST ?? '127.0.0.1';
  sizerServer().listen(port, host, () => {
    process.stdout.write(`bloomkit sizer: http://${host}:${port}/  (Ctrl-C stops it)\n`);
  });
}
