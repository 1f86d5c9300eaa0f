import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BloomFilter, chooseShape, solveShape } from '@bloomkit/core';
import { ExceptionFilter } from '@bloomkit/exceptions';
import { createFilter, type FilterClass, kinds } from '@bloomkit/filters';
import { BinaryFuseFilter, fuseLayout } from '@bloomkit/fuse';
import { openParquetFilters, splitBlockBitsetBytes, splitBlockFalsePositiveRate } from '@bloomkit/parquet';
import { chainAt } from '@bloomkit/scalable';
import { Chromium } from '@bloomkit/testkit/chromium';
import { WindowBloomFilter } from '@bloomkit/window';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the server is a plain ES module without types.
import { sizerServer } from '../serve.mjs';

// The page as a user has it: served by serve.mjs, loaded by headless Chromium through its import map (the built
// packages, as `pnpm test` builds them first), driven by real clicks, typing and a dropped file; every number it
// shows is compared with the same library called here. Screenshots go to apps/sizer/test-artifacts/.
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

let server: Server;
let browser: Chromium;
let url = '';
let dir = '';

beforeAll(async () => {
  server = sizerServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`;
  browser = await Chromium.launch();
  await browser.goto(url);
  dir = mkdtempSync(join(tmpdir(), 'bloomkit-sizer-'));
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

type Shown = Record<string, { value: string; text: string }>;

/** The rows of a results table, by field. */
function table(selector: string): Promise<Shown> {
  return browser.evaluate(`Object.fromEntries([...document.querySelectorAll('${selector} tr')].map((tr) =>
    [tr.dataset.field, { value: tr.cells[1].dataset.value, text: tr.cells[1].textContent }]))`);
}

const counter = (name: string) => browser.evaluate<number>(`Number(document.body.dataset.${name} ?? 0)`);

/** Runs `action` and waits until the page has rendered again. */
async function after(name: 'renders' | 'inspections', action: () => Promise<void>): Promise<void> {
  const before = await counter(name);
  await action();
  await browser.waitFor(`Number(document.body.dataset.${name} ?? 0) > ${before}`);
}

/** Clicks the kind's button and types each field (blank to clear it). */
async function sizeOf(kind: string, fields: Record<string, string>): Promise<Shown> {
  await after('renders', () => browser.click(`[data-kind="${kind}"]`));
  for (const [name, text] of Object.entries(fields)) {
    const now = await browser.evaluate<string>(`document.querySelector('#field-${name}').value`);
    if (now !== text) await after('renders', () => browser.type(`#field-${name}`, text));
  }
  expect(await browser.evaluate('document.querySelector("#shape").dataset.kind')).toBe(kind);
  return table('#shape');
}

const error = (id: string) => browser.evaluate<string>(`document.querySelector('#${id}').textContent`);
const seriesPoints = (name: string) =>
  browser.evaluate<number>(
    `Number(document.querySelector('#plot [data-series^="${name}"]')?.dataset.points ?? -1)`,
  );
const num = (shown: Shown, field: string) => Number(shown[field]?.value);

/**
 * The plot shown is readable: the y axis's title overlaps none of its tick labels (their boxes as the browser laid
 * them out), every legend entry lies inside the drawing, and each axis writes its ticks in one notation (all in
 * exponent form, or none).
 */
async function expectReadablePlot(): Promise<void> {
  const layout = await browser.evaluate<{
    overlaps: string[];
    outside: string[];
    x: string[];
    y: string[];
  }>(`(() => {
    const svg = document.querySelector('#plot svg');
    const title = svg.querySelector('[data-title="y"]').getBoundingClientRect();
    const ticks = (axis) => [...svg.querySelectorAll('[data-tick="' + axis + '"]')];
    const overlaps = ticks('y').filter((t) => {
      const r = t.getBoundingClientRect();
      return r.left < title.right && r.right > title.left && r.top < title.bottom && r.bottom > title.top;
    }).map((t) => t.textContent);
    const box = svg.getBoundingClientRect();
    const outside = [...svg.querySelectorAll('[data-legend]')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5;
    }).map((t) => t.textContent);
    return { overlaps, outside, x: ticks('x').map((t) => t.textContent), y: ticks('y').map((t) => t.textContent) };
  })()`);
  expect(layout.overlaps).toEqual([]);
  expect(layout.outside).toEqual([]);
  for (const texts of [layout.x, layout.y]) {
    expect(texts.length).toBeGreaterThan(1);
    const exponents = texts.filter((t) => t.includes('e')).length;
    expect([0, texts.length], texts.join(' ')).toContain(exponents);
  }
}

async function screenshot(name: string): Promise<void> {
  writeFileSync(join(ARTIFACTS, `${name}.png`), await browser.screenshot());
}

describe('the sizer page, in headless Chromium', () => {
  it('offers every kind of the table, and sizes each from typed values with the libraries’ own numbers', async () => {
    await import('@bloomkit/exceptions');
    const names = await browser.evaluate<string[]>(
      `[...document.querySelectorAll('#kinds button')].map((b) => b.dataset.kind)`,
    );
    expect(names).toEqual(kinds().map((Class) => Class.kind.name));
    const byName = (name: string) => kinds().find((Class) => Class.kind.name === name) as FilterClass;

    for (const name of ['standard', 'partitioned', 'blocked', 'counting']) {
      const layout = byName(name).kind.layout;
      const shown = await sizeOf(name, { capacity: '50k', fpr: '0.5%', bits: '', hashes: '' });
      const shape = chooseShape(50_000, 0.005, layout);
      expect([num(shown, 'bits'), num(shown, 'hashes'), num(shown, 'fpr')]).toEqual([
        shape.bits,
        shape.hashes,
        shape.predictedFpr,
      ]);
      expect(num(shown, 'bytes')).toBe(Math.ceil((shape.bits * (name === 'counting' ? 4 : 1)) / 8));
      // The plot: the layout's formula, and rates measured on a filter of that shape built in the page.
      expect(await seriesPoints(`${layout.name} formula`)).toBeGreaterThanOrEqual(70);
      // Eight measurements: a rate where more than 3 of the 20,000 probes hit, else its 95% upper bound, drawn as a
      // bound (early steps, whose rate is below what 20,000 probes can see), never as a point above the formula.
      const points = await seriesPoints('measured here');
      const bounds = await seriesPoints('measured: at most');
      expect(points).toBeGreaterThanOrEqual(5);
      expect(bounds).toBeGreaterThanOrEqual(1);
      expect(points + bounds).toBe(8);
      await expectReadablePlot();
      await screenshot(`size-${name}`);
      // m and p: the most keys those bits hold.
      const fromBits = await sizeOf(name, { capacity: '', bits: String(shape.bits) });
      expect(num(fromBits, 'capacity')).toBe(solveShape({ bits: shape.bits, fpr: 0.005 }, layout).capacity);
    }

    const parquet = await sizeOf('parquet', { capacity: '50k', fpr: '1%' });
    expect(num(parquet, 'bytes')).toBe(splitBlockBitsetBytes(50_000, 0.01));
    // The same rate, computed by Chromium's V8 (its Math functions may differ from Node's in the last bit).
    const predicted = splitBlockFalsePositiveRate(splitBlockBitsetBytes(50_000, 0.01) / 32, 50_000);
    expect(Math.abs(num(parquet, 'fpr') / predicted - 1)).toBeLessThan(1e-12);
    await expectReadablePlot();
    await screenshot('size-parquet');

    const chain = chainAt({ initialCapacity: 1000, fpr: 0.01, growth: 1.5, tightening: 0.93 }, 1_000_000);
    const scalable = await sizeOf('scalable', { capacity: '1000', fpr: '1%', keys: '1e6' });
    expect([num(scalable, 'subFilters'), num(scalable, 'bits')]).toEqual([
      chain.length,
      chain.reduce((sum, s) => sum + s.bits, 0),
    ]);
    expect(num(scalable, 'idealBits')).toBe(chooseShape(1_000_000, 0.01).bits);
    expect(await seriesPoints('scalable chain')).toBeGreaterThan(100);
    await expectReadablePlot();
    await screenshot('size-scalable');
    const faster = await sizeOf('scalable', { growth: '2', tightening: '0.85' });
    expect(num(faster, 'subFilters')).toBe(
      chainAt({ initialCapacity: 1000, fpr: 0.01, growth: 2, tightening: 0.85 }, 1_000_000).length,
    );

    const count = await sizeOf('window', { capacity: '10k', fpr: '1%', duration: '' });
    const countShape = WindowBloomFilter.shapeOf(10_000, 0.01);
    expect([
      num(count, 'hashes'),
      num(count, 'ageSlices'),
      num(count, 'sliceBits'),
      num(count, 'generation'),
    ]).toEqual([countShape.hashes, countShape.ageSlices, countShape.sliceBits, countShape.generation]);
    const timed = await sizeOf('window', { duration: '1h' });
    const timedShape = WindowBloomFilter.shapeOf(10_000, 0.01, { duration: 3_600_000 });
    expect([num(timed, 'generation'), num(timed, 'period')]).toEqual([
      timedShape.generation,
      timedShape.period,
    ]);
    expect(await seriesPoints('presence')).toBe(2 * (timedShape.hashes + timedShape.ageSlices + 2));
    await expectReadablePlot();
    await screenshot('size-window');

    const excepted = await sizeOf('exceptions', { capacity: '50k', fpr: '0.5%', bits: '', hashes: '' });
    expect(excepted.inner?.value).toBe('standard');
    expect(num(excepted, 'bits')).toBe(chooseShape(50_000, 0.005).bits);
    // The nested kind, chosen with the keyboard on its <select>.
    await browser.evaluate(`document.querySelector('#field-inner').focus()`);
    await after('renders', async () => {
      const down = { key: 'ArrowDown', code: 'ArrowDown', windowsVirtualKeyCode: 40 };
      await browser.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...down });
      await browser.send('Input.dispatchKeyEvent', { type: 'keyUp', ...down });
    });
    const nested = await table('#shape');
    const second = kinds().filter((Class) => Class.kind.params === 'single')[1]!;
    expect(nested.inner?.value).toBe(second.kind.name);
    expect(num(nested, 'bits')).toBe(chooseShape(50_000, 0.005, second.kind.layout).bits);

    // A fixed set: the reference's sizing for n, both widths; and memory against the rate for every kind.
    const fuse = await sizeOf('fuse', { capacity: '1e6' });
    const layout = fuseLayout(1_000_000);
    expect([num(fuse, 'slots'), num(fuse, 'bytes8'), num(fuse, 'fpr16')]).toEqual([
      layout.arrayLength,
      layout.arrayLength,
      2 ** -16,
    ]);
    expect(num(fuse, 'bitsPerKey8')).toBeCloseTo(9.04, 2);
    // Fuse is drawn where a width reaches p (down to 2^-16: 39 of 51 rates), cuckoo where 24-bit fingerprints do, the others all along.
    for (const [series, points] of [
      ['fuse (fixed set)', 39],
      ['standard', 51],
      ['blocked', 51],
      ['counting (4-bit)', 51],
      ['parquet (split-block)', 51],
    ] as const) {
      expect(await seriesPoints(series), series).toBe(points);
    }
    expect(await seriesPoints('cuckoo')).toBeGreaterThan(40);
    await sizeOf('cuckoo', { capacity: '1e6', fpr: '1%' });
    expect(await seriesPoints('counting (4-bit)')).toBe(51);
    expect(await seriesPoints('cuckoo')).toBeGreaterThan(40);
  });

  it('shows the library’s error for values out of range in the page’s words, and refuses what the CLI refuses', async () => {
    await sizeOf('standard', { capacity: '1e6', fpr: '2', bits: '', hashes: '' });
    // The library's solveShape: fpr must be in (0, 1), got number 2; no function name, the field's name.
    expect(await error('size-error')).toBe('p must be in (0, 1), got 2');
    expect(await table('#shape')).toEqual({});
    await sizeOf('standard', { fpr: 'lots' });
    expect(await error('size-error')).toBe('p: false-positive rate: "lots" is not a rate (e.g. 0.01, 1%)');
    // A count is a whole number: 1.5 is refused as `bloomkit calc -n 1.5` refuses it, not taken as 2.
    await sizeOf('standard', { capacity: '1.5', fpr: '1%' });
    expect(await error('size-error')).toBe("n must be an integer in [1, 2^53 - 1], got '1.5'");
    await sizeOf('standard', { capacity: '1.5k' });
    expect(await error('size-error')).toBe('');
    await sizeOf('scalable', { capacity: '1000', fpr: '1%', growth: '9' });
    expect(await error('size-error')).toBe('g must be a number in [1.125, 4], got 9');
    await sizeOf('scalable', { growth: '' });
    expect(await error('size-error')).toBe('');
    // A bound computed in floating point is shown to four digits.
    await sizeOf('cuckoo', { capacity: '1e6', fpr: '1e-12' });
    expect(await error('size-error')).toBe('p must be in (4.292e-7, 1), got 1e-12');
    // A time window of no time is refused (as bloomkit create --duration 0s), not sized as a 0 ms window.
    await sizeOf('window', { capacity: '1e6', fpr: '1%', duration: '0s' });
    expect(await error('size-error')).toBe(
      "duration must be a time such as 500ms, 90s, 15m, 24h or 7d (at least 1 ms), got '0s'",
    );
    expect(await table('#shape')).toEqual({});
    await sizeOf('window', { duration: '' });
    expect(await error('size-error')).toBe('');
  });

  it('inspects a file of every kind dropped on it (or chosen), and answers keys as the filter does', async () => {
    const filters: [string, BloomFilter][] = [];
    for (const Class of kinds()) {
      const name = Class.kind.name;
      if (name === 'exceptions') continue;
      const keys = Array.from({ length: 700 }, (_, i) => `key-${i}`);
      if (name === 'fuse') {
        // A fixed set is built from its keys, not created and added to.
        filters.push([name, BinaryFuseFilter.build(keys, { seed: 5 })]);
        continue;
      }
      const filter =
        name === 'window'
          ? WindowBloomFilter.create(1000, 0.01, { seed: 5 })
          : createFilter(name, { capacity: 1000, fpr: 0.01, ...(name === 'parquet' ? {} : { seed: 5 }) });
      for (const key of keys) filter.add(key);
      filters.push([name, filter]);
    }
    const small = createFilter('standard', { bits: 256, hashes: 2, seed: 9 });
    for (let i = 0; i < 60; i++) small.add(`key-${i}`);
    const flagged = Array.from({ length: 5000 }, (_, i) => `other-${i}`).find((key) => small.has(key))!;
    const exceptions = ExceptionFilter.wrap(small);
    exceptions.addException(flagged);
    filters.push(['exceptions', exceptions]);

    const queries = ['key-0', 'key-699', 'key-700', 'never-added', flagged];
    for (const [index, [name, filter]] of filters.entries()) {
      const path = join(dir, `${name}.bloom`);
      writeFileSync(path, filter.serialize());
      if (index === 0) {
        // The file picker: Chromium sets the <input type=file> as a user's choice does, and it fires `change`.
        const { root } = (await browser.send('DOM.getDocument')) as { root: { nodeId: number } };
        const { nodeId } = (await browser.send('DOM.querySelector', {
          nodeId: root.nodeId,
          selector: '#file',
        })) as {
          nodeId: number;
        };
        await after('inspections', async () => {
          await browser.send('DOM.setFileInputFiles', { files: [path], nodeId });
        });
      } else {
        await after('inspections', () => browser.dropFile('#drop', path));
      }
      expect(await error('inspect-error')).toBe('');
      const facts = await table('#facts');
      expect(facts.kind?.value).toBe(name);
      expect(facts.file?.value).toBe(`${name}.bloom`);
      expect([num(facts, 'bits'), num(facts, 'hashes'), num(facts, 'count')]).toEqual([
        filter.bits,
        filter.hashes,
        filter.count,
      ]);
      expect([num(facts, 'fill'), num(facts, 'currentFpr')]).toEqual([
        filter.fillRatio(),
        filter.expectedFpr(),
      ]);
      expect(num(facts, 'estimatedCount')).toBe(Math.round(filter.estimatedCount()));
      expect(num(facts, 'byteLength')).toBe(filter.serialize().byteLength);
      await browser.type('#queries', queries.join('\n'));
      const answers = await browser.evaluate<boolean[]>(
        `[...document.querySelectorAll('#answers li')].map((li) => li.dataset.present === 'true')`,
      );
      expect(answers, name).toEqual(queries.map((key) => filter.has(key)));
      if (name === 'exceptions') {
        expect(answers[4]).toBe(false);
        expect(num(facts, 'exceptionCount')).toBe(1);
      }
      if (name === 'fuse') {
        const fuse = (filter as unknown as BinaryFuseFilter).reference();
        expect([num(facts, 'fingerprintBits'), num(facts, 'segmentLength'), num(facts, 'slots')]).toEqual([
          8,
          fuse.segmentLength,
          fuse.arrayLength,
        ]);
        expect(facts.keys?.value).toBe('murmur3');
      }
      if (name === 'cuckoo') {
        // Printed from the kind's own facts(), not from a branch of the page.
        const cuckoo = filter as unknown as { fingerprintBits: number; buckets: number };
        expect([num(facts, 'fingerprintBits'), num(facts, 'bucketSize'), num(facts, 'buckets')]).toEqual([
          cuckoo.fingerprintBits,
          4,
          cuckoo.buckets,
        ]);
      }
      await screenshot(`inspect-${name}`);
    }
  });

  it('lists the split-block filters of a Parquet file dropped on it, as bloomkit info does', async () => {
    const file = join(dir, 'events.parquet');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    await connection.run(
      `COPY (SELECT 'https://example.com/' || (i // 10)::VARCHAR AS url, (i // 10)::INTEGER AS id
            FROM range(60000) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 30000)`,
    );
    connection.closeSync();
    await after('inspections', () => browser.dropFile('#drop', file));
    expect(await error('inspect-error')).toBe('');
    const shown = await table('#facts');
    const filters = await openParquetFilters(new Uint8Array(readFileSync(file)));
    expect(filters.chunks.length).toBeGreaterThanOrEqual(4);
    expect(shown.kind?.value).toBe('parquet-file');
    expect(num(shown, 'rowGroups')).toBe(filters.rowGroups);
    expect(num(shown, 'chunks')).toBe(filters.chunks.length);
    for (const chunk of filters.chunks) {
      const filter = (await filters.filter(chunk.rowGroup, chunk.column))!;
      const one = shown[`chunk:${chunk.rowGroup}:${chunk.column}`];
      expect(Number(one?.value), chunk.column).toBe(filter.blocks * 32);
      expect(one?.text).toContain(`${chunk.type}, `);
      expect(one?.text).toContain(`fill ${(100 * filter.fillRatio()).toFixed(2)}%`);
    }
    expect(await browser.evaluate('document.querySelectorAll("#answers li").length')).toBe(0);
    await screenshot('inspect-parquet-file');
  });

  it('refuses a file that is not a bloomkit file, and one whose checksum fails, with the library’s errors', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a filter\n');
    await after('inspections', () => browser.dropFile('#drop', text));
    expect(await error('inspect-error')).toMatch(/^notes\.txt: [^:]*magic/);
    expect(await table('#facts')).toEqual({});
    const bytes = createFilter('standard', { capacity: 100, fpr: 0.01 }).serialize();
    bytes[bytes.length - 10]! ^= 1;
    const corrupt = join(dir, 'corrupt.bloom');
    writeFileSync(corrupt, bytes);
    await after('inspections', () => browser.dropFile('#drop', corrupt));
    expect(await error('inspect-error')).toMatch(/^corrupt\.bloom: .*checksum/i);
    // What the file says is shown beside the error (as bloomkit info prints it), and its filter is not asked.
    const facts = await table('#facts');
    expect(facts.kind?.value).toBe('standard');
    expect(facts.capacity?.value).toBe('100');
    expect(facts.checksum?.value).toBe('mismatch');
    expect(await browser.evaluate('document.querySelectorAll("#answers li").length')).toBe(0);
  });
});
