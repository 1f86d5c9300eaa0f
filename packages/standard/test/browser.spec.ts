import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { workspaceServer } from '@bloomkit/testkit/browser';
import { Chromium } from '@bloomkit/testkit/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A browser user without a bundler: a plain <script type="module"> with an import map loads the built packages
// from a static server, in headless Chromium. No Node-only API may be reached on that path. The import map is the
// one the testkit's server generates from the workspace's manifests (the sizing page's too).
const PAGE = `<!doctype html>
<html><head>
<script type="importmap" data-workspace></script>
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
  document.body.dataset.done = 'true';
</script>
</head><body>pending</body></html>`;

/** What the page imports; the server's import map holds these and all they depend on. */
const PACKAGES = [
  '@bloomkit/standard',
  '@bloomkit/filters',
  '@bloomkit/exceptions',
  '@bloomkit/window',
  '@bloomkit/parquet',
];

let server: Server;
let browser: Chromium;
let port = 0;

beforeAll(async () => {
  server = workspaceServer(PACKAGES, (path) =>
    path === '/test.html' ? { body: PAGE, type: 'text/html; charset=utf-8' } : undefined,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  browser = await Chromium.launch();
});
afterAll(async () => {
  browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('in a browser, without a bundler', () => {
  it('an import map loads @bloomkit/standard, @bloomkit/filters, @bloomkit/exceptions, @bloomkit/window, @bloomkit/parquet (with hyparquet) and @bloomkit/fuse in headless Chromium, and the filters work', async () => {
    await browser.goto(`http://127.0.0.1:${port}/test.html`, 'document.body?.dataset.done === "true"');
    const body = await browser.evaluate<string>('document.body.textContent');
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
