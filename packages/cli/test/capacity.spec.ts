import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

/** `n` distinct lines. */
function distinct(n: number, tag: string): string {
  let out = '';
  for (let i = 0; i < n; i++) out += `https://${tag}.example/item/${i}\n`;
  return out;
}

describe('a promised rate is never silently exceeded', () => {
  it('dedup --capacity N grows: 10x N distinct lines drop at most the requested rate', async () => {
    const capacity = 10_000;
    const fpr = 0.01;
    const input = distinct(10 * capacity, 'grow');
    const run = await bloomkit(['dedup', '--capacity', String(capacity), '--fpr', String(fpr)], {
      cwd: dir,
      input,
    });
    expect([run.status, run.stderr]).toEqual([0, '']);
    const dropped = 10 * capacity - (run.stdout.split('\n').length - 1);
    // The scalable chain keeps its compound rate below fpr; 99.9% bound of a binomial at p = fpr.
    const bound = fpr + 3.1 * Math.sqrt((fpr * (1 - fpr)) / (10 * capacity));
    expect(dropped / (10 * capacity)).toBeLessThanOrEqual(bound);
  });

  it('a fixed filter past its capacity warns on stderr the moment it passes, and exits 3', async () => {
    const capacity = 10_000;
    const input = distinct(10 * capacity, 'fixed');
    const run = await bloomkit(['dedup', '--fixed', '--capacity', String(capacity), '--fpr', '0.01'], {
      cwd: dir,
      input,
    });
    expect(run.status).toBe(3);
    expect(run.stderr).toBe(
      'bloomkit: dedup: warning: now holds 10,001 keys, past its capacity of 10,000; its false-positive rate rises above the one promised (created for 0.01). Create a larger filter, or use a scalable one\n',
    );
    // --kind blocked is fixed too; --fixed with a scalable kind contradicts itself; --fixed needs a capacity.
    expect(
      (await bloomkit(['dedup', '--kind', 'blocked', '-n', '10'], { cwd: dir, input: distinct(11, 'k') }))
        .status,
    ).toBe(3);
    expect((await bloomkit(['dedup', '--fixed', '--kind', 'scalable'], { cwd: dir })).stderr).toMatch(
      /contradict/,
    );
    expect((await bloomkit(['dedup', '--fixed'], { cwd: dir })).stderr).toMatch(/needs --capacity/);
  });

  it('add into a file past its capacity warns once and exits 3; a filter sized by bits and hashes promised no rate', async () => {
    const file = join(dir, 'small.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const within = await bloomkit(['add', file], { cwd: dir, input: distinct(100, 'a') });
    expect([within.status, within.stderr]).toEqual([0, '']);
    const past = await bloomkit(['add', file], { cwd: dir, input: distinct(50, 'b') });
    // As `dedup --fixed`: the keys are added, the rate is no longer the one promised.
    expect(past.status).toBe(3);
    expect(
      (await bloomkit(['has', file, ...distinct(50, 'b').trim().split('\n')], { cwd: dir })).status,
    ).toBe(0);
    expect(past.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(past.stderr).toMatch(
      /^bloomkit: .*small\.bf: warning: now holds 101 keys, past its capacity of 100/,
    );
    // Already past: warned at once.
    const more = await bloomkit(['add', file, 'one-more'], { cwd: dir });
    expect([more.status, more.stderr]).toEqual([3, expect.stringMatching(/past its capacity of 100/)]);

    const shaped = join(dir, 'shaped.bf');
    await bloomkit(['create', shaped, '--bits', '1000', '--hashes', '3'], { cwd: dir });
    expect((await bloomkit(['add', shaped], { cwd: dir, input: distinct(500, 'c') })).stderr).toBe('');
  });
});
