#!/usr/bin/env node
// Serves the sizer page and the built packages it loads through its import map, on loopback: `pnpm sizer` from
// the repository's root builds them and runs this. Only the page's own files and the packages' dist/*.js are
// served; every other path is a 404.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const PAGE = fileURLToPath(new URL('./', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript' };

/** The file a request path names, or undefined. */
function fileOf(path) {
  if (path === '/' || path === '/index.html') return `${PAGE}index.html`;
  if (path === '/style.css') return `${PAGE}style.css`;
  if (/^\/dist\/[\w-]+\.js$/.test(path)) return `${PAGE}${path.slice(1)}`;
  if (/^\/packages\/[a-z]+\/dist\/[\w/.-]+\.js$/.test(path) && !path.includes('..'))
    return `${ROOT}${path.slice(1)}`;
  if (
    /^\/packages\/parquet\/node_modules\/hyparquet\/src\/[\w/.-]+\.js$/.test(path) &&
    !path.includes('..')
  ) {
    return `${ROOT}${path.slice(1)}`;
  }
  return undefined;
}

/**
 * A server for the page; call `listen` on it. It only reads: GET and HEAD, without a body. Any other method is a 405
 * and a request that carries a body a 413, both answered at once with the connection closed, so nothing a client
 * sends is read or kept.
 */
export function sizerServer() {
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
    const file = fileOf(path);
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type = TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
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
