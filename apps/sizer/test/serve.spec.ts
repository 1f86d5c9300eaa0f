import { get, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the server is a plain ES module without types.
import { sizerServer } from '../serve.mjs';

// The page's server only reads: a method that writes, or a request with a body, is refused at once and its body
// never read.

let server: import('node:http').Server;
let port: number;

beforeAll(async () => {
  server = sizerServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A request; `bodyBytes` of body announced and written, as much as the server takes before it answers. */
function send(
  method: string,
  path: string,
  bodyBytes = 0,
): Promise<{ status: number; allow: string | undefined; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: bodyBytes > 0 ? { 'content-length': bodyBytes } : {},
      },
      (response) => {
        // Answered as soon as the status line is in: a server that closes while the body is sent resets the rest.
        response.resume();
        resolve({ status: response.statusCode ?? 0, allow: response.headers.allow, sent });
      },
    );
    req.on('error', (error) => reject(error));
    if (bodyBytes === 0) {
      req.end();
      return;
    }
    const chunk = Buffer.alloc(1 << 16);
    const write = () => {
      while (sent < bodyBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('the sizer server', () => {
  it('serves the page to GET and HEAD', async () => {
    expect((await send('GET', '/')).status).toBe(200);
    expect((await send('HEAD', '/')).status).toBe(200);
    expect((await send('GET', '/nope')).status).toBe(404);
  });

  it('refuses POST, PUT and DELETE with 405, and a body of 100 MB with an answer before it is sent', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await send(method, '/');
      expect([answer.status, answer.allow], method).toEqual([405, 'GET, HEAD']);
    }
    const big = await send('POST', '/', 100 * 1024 * 1024);
    expect(big.status).toBe(405);
    // The answer came while most of the body was still unsent: the server did not read it.
    expect(big.sent).toBeLessThan(100 * 1024 * 1024);
    expect((await send('GET', '/', 1024)).status).toBe(413);
  });

  it('writes into the page an import map generated from the manifests, whose every path it serves', async () => {
    const html = await fetchText('/');
    const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
    expect(map).not.toBeNull();
    const { imports } = JSON.parse(map![1]!) as { imports: Record<string, string> };
    // The page's dependencies, theirs (the table of kinds imports every kind), and hyparquet from outside.
    for (const name of [
      '@bloomkit/core',
      '@bloomkit/core/kit',
      '@bloomkit/filters',
      '@bloomkit/fuse',
      'hyparquet',
    ]) {
      expect(imports[name], name).toBeDefined();
    }
    // No package manager's layout in a URL, and nothing the page does not need (Node-only packages).
    for (const [name, path] of Object.entries(imports)) {
      expect(path, name).not.toMatch(/node_modules|\.pnpm/);
      expect((await send('GET', path)).status, path).toBe(200);
    }
    expect(imports['@bloomkit/redis']).toBeUndefined();
    expect(imports.ioredis).toBeUndefined();
    // Only .js below a served prefix: a package's manifest, its sources and a dependency's own node_modules are not.
    for (const path of [
      '/packages/core/package.json',
      '/packages/core/src/index.ts',
      '/deps/hyparquet/package.json',
    ]) {
      expect((await send('GET', path)).status, path).toBe(404);
    }
    expect((await send('GET', '/deps/hyparquet/node_modules/x/index.js')).status).toBe(404);
    expect((await send('GET', '/packages/core/dist/../../../package.json')).status).toBe(404);
  });
});

/** The body of a GET. */
function fetchText(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve(text));
    }).on('error', reject);
  });
}
