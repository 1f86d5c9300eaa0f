import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

// Files past 1 GiB take the parts path: read in page-sized parts straight into the filter's pages, written with
// serializeParts(). (Past 4 GiB the path is the same; this size keeps the test's disk and time small.)
describe('a filter file past 1 GiB', () => {
  it('is created, filled, queried and inspected through the parts path', async () => {
    const file = join(dir, 'big.bf');
    const bits = 2 ** 33 + 2 ** 22; // 1 GiB + 512 KiB of payload: three pages, the last one short
    expect(
      (await bloomkit(['create', file, '--bits', String(bits), '--hashes', '4'], { cwd: dir })).status,
    ).toBe(0);
    expect(statSync(file).size).toBe(24 + 40 + bits / 8 + 4);
    const keys = Array.from({ length: 1000 }, (_, i) => `https://big.example/${i}`).join('\n');
    expect((await bloomkit(['add', file, '--from', '-'], { cwd: dir, input: keys })).status).toBe(0);
    expect((await bloomkit(['has', file, '--from', '-'], { cwd: dir, input: keys })).status).toBe(0);
    expect((await bloomkit(['has', file, 'https://big.example/absent'], { cwd: dir })).status).toBe(1);
    const info = JSON.parse((await bloomkit(['info', '--json', file], { cwd: dir })).stdout);
    expect(info).toMatchObject({ bits, hashes: 4, count: 1000, checksum: 'ok' });
  });
});
