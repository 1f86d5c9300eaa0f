import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A browser user without a bundler: a plain <script type="module"> with an import map loads the built packages
// from a static server, in headless Chromium. No Node-only API may be reached on that path.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHROMIUM = 'chromium-headless-shell';

const PAGE = `<!doctype html>
<html><head>
<script type="importmap">
{ "imports": {
  "@bloomkit/core": "/packages/core/dist/index.js",
  "@bloomkit/core/internal": "/packages/core/dist/internal.js",
  "@bloomkit/core/kit": "/packages/core/dist/kit.js",
  "@bloomkit/standard": "/packages/standard/dist/index.js",
  "@bloomkit/partitioned": "/packages/partitioned/dist/index.js",
  "@bloomkit/counting": "/packages/counting/dist/index.js",
  "@bloomkit/scalable": "/packages/scalable/dist/index.js",
  "@bloomkit/blocked": "/packages/blocked/dist/index.js",
  "@bloomkit/filters": "/packages/filters/dist/index.js",
  "@bloomkit/exceptions": "/packages/exceptions/dist/index.js",
  "@bloomkit/window": "/packages/window/dist/index.js",
  "@bloomkit/parquet": "/packages/parquet/dist/index.js",
  "@bloomkit/cuckoo": "/packages/cuckoo/dist/index.js",
  "@bloomkit/fuse": "/packages/fuse/dist/index.js",
  "hyparquet": "/packages/parquet/node_modules/hyparquet/src/index.js"
} }
</script>
<script type="module">
  try {
    const { StandardBloomFilter } = await import('@bloomkit/standard');
    const filter = StandardBloomFilter.create(1000, 0.01, { seed: 'random' });
    filter.add('https://example.com/a');
    const copy = StandardBloomFilter.deserialize(filter.serialize().buffer);
    const json = StandardBloomFilter.fromJSON(JSON.stringify(filter));
    const { createFilter, deserializeAny } = await import('@bloomkit/filters');
    const blocked = createFilter('blocked', { capacity: 1000, fpr: 0.01 });
    blocked.add('b');
    const any = deserializeAny(blocked.serialize());
    const { ExceptionFilter } = await import('@bloomkit/exceptions');
    const small = createFilter('standard', { bits: 64, hashes: 1 });
    for (let i = 0; i < 30; i++) small.add('bad-' + i);
    small.add('b');
    const excepted = ExceptionFilter.wrap(small);
    const flagged = Array.from({ length: 500 }, (_, i) => 'good-' + i).find((key) => small.has(key));
    excepted.addException(flagged);
    const exceptions = ExceptionFilter.deserialize(excepted.serialize());
    const { WindowBloomFilter } = await import('@bloomkit/window');
    const recent = WindowBloomFilter.create(10, 0.01);
    for (let i = 0; i < 100; i++) recent.add('w' + i);
    const window = deserializeAny(recent.serialize()).filter;
    const parquet = createFilter('parquet', { capacity: 1000, fpr: 0.01, type: 'INT64' });
    parquet.addAll([1n, 2n, 2 ** 40]);
    const { xxh64 } = await import('@bloomkit/parquet');
    const { buildFilterBlock, openFilterBlock } = await import('@bloomkit/filters');
    const block = openFilterBlock(buildFilterBlock(['f1', 'f2'], { kind: 'fuse' }));
    document.body.textContent = JSON.stringify({
      any: [any.Class.kind.name, any.filter.has('b')],
      fuse: [block.kind, block.mayContain('f1'), block.mayContain('f2'), block.keys],
      exceptions: [exceptions.has('b'), exceptions.has(flagged), exceptions.exceptionCount],
      window: [window.has('w99'), window.add('w99'), window.add('new')],
      parquet: [...deserializeAny(parquet.serialize()).filter.hasMany([2n, 2 ** 40, 3n]), xxh64('').toString(16)],
      has: copy.has('https://example.com/a'),
      absent: copy.has('https://example.com/zzz'),
      json: json.has('https://example.com/a'),
      bits: filter.bits,
    });
  } catch (error) {
    document.body.textContent = 'ERROR ' + error;
  }
</script>
</head><body>pending</body></html>`;

let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/test.html') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    if (
      !/^\/packages\/(core|standard|partitioned|counting|scalable|blocked|filters|exceptions|window|parquet|cuckoo|fuse)\/dist\/[\w/.-]+\.js$/.test(
        path,
      ) &&
      !/^\/packages\/parquet\/node_modules\/hyparquet\/src\/[\w/.-]+\.js$/.test(path)
    ) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(`${ROOT}${path.slice(1)}`);
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function dumpDom(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      CHROMIUM,
      ['--no-sandbox', '--disable-gpu', '--virtual-time-budget=10000', '--dump-dom', url],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', () =>
      reject(new Error(`${CHROMIUM} is not installed: run the README test command, which installs it`)),
    );
    child.on('exit', () => resolve(out));
  });
}

describe('in a browser, without a bundler', () => {
  it('an import map loads @bloomkit/standard, @bloomkit/filters, @bloomkit/exceptions, @bloomkit/window, @bloomkit/parquet (with hyparquet) and @bloomkit/fuse in headless Chromium, and the filters work', async () => {
    const dom = await dumpDom(`http://127.0.0.1:${port}/test.html`);
    const body = /<body>([\s\S]*)<\/body>/.exec(dom)?.[1] ?? dom;
    expect(body).not.toMatch(/ERROR|pending/);
    expect(JSON.parse(body)).toEqual({
      any: ['blocked', true],
      fuse: ['fuse', true, true, 2],
      exceptions: [true, false, 1],
      window: [true, false, true],
      parquet: [true, true, false, 'ef46db3751d8e999'],
      has: true,
      absent: false,
      json: true,
      bits: 9594,
    });
  });
});
