import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory, startBloomkit } from './support/run.js';

const dir = scratchDirectory();

/** Resolves when `predicate` holds, polling every millisecond. */
async function until(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('atomic writes', () => {
  it('a process killed in the middle of writing leaves the old file, byte for byte; a finished one the new', async () => {
    const file = join(dir, 'big.bf');
    // 2^31 bits: a 256 MiB file, so the write takes long enough to be caught in the middle.
    expect((await bloomkit(['create', file, '--bits', '2^31', '--hashes', '3'], { cwd: dir })).status).toBe(
      0,
    );
    expect((await bloomkit(['add', file, 'old-key'], { cwd: dir })).status).toBe(0);
    const before = readFileSync(file);

    const child = startBloomkit(['add', file, 'new-key'], dir);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const temp = () => readdirSync(dir).some((name) => name.startsWith('.big.bf.') && name.endsWith('.tmp'));
    await until(temp, 60_000);
    child.kill('SIGKILL');
    await exited;

    const after = readFileSync(file);
    expect(after.equals(before)).toBe(true);
    const old = StandardBloomFilter.deserialize(after);
    expect([old.has('old-key'), old.has('new-key')]).toEqual([true, false]);

    expect((await bloomkit(['add', file, 'new-key'], { cwd: dir })).status).toBe(0);
    const updated = StandardBloomFilter.deserialize(readFileSync(file));
    expect([updated.has('old-key'), updated.has('new-key')]).toEqual([true, true]);
    expect(existsSync(file)).toBe(true);
  });
});
