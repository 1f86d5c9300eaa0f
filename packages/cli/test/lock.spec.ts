import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describe, expect, it } from 'vitest';
import { bloomkit, bloomkitAsync, scratchDirectory, startBloomkit } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);
const ROUNDS = 200;

/** The keys a `-v` run reported, with their answers. */
function answers(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const [key, answer] = line.split('\t');
    out.set(key!, answer!);
  }
  return out;
}

describe('one writer at a time', () => {
  it(`two concurrent adds to one file, ${ROUNDS} rounds: every key either reported added is in the file`, async () => {
    const file = at('shared.bf');
    expect(bloomkit(['create', file, '-n', '10000', '-p', '1e-6'], { cwd: dir }).status).toBe(0);
    const acknowledged: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b] = await Promise.all(
        ['a', 'b'].map((who) =>
          bloomkitAsync(['add', '-v', '--wait', '60', file, `${who}-${round}`], { cwd: dir }),
        ),
      );
      for (const run of [a!, b!]) {
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0); // One new key each: "added" (add exits 0 when it succeeded).
        for (const [key, answer] of answers(run.stdout)) if (answer === 'added') acknowledged.push(key);
      }
    }
    expect(acknowledged).toHaveLength(2 * ROUNDS);
    const final = StandardBloomFilter.deserialize(readFileSync(file));
    expect(acknowledged.filter((key) => !final.has(key))).toEqual([]);
    expect(final.count).toBe(2 * ROUNDS);
  }, 300_000);

  it(`two concurrent dedup --state runs, ${ROUNDS} rounds: every printed line is in the state`, async () => {
    const state = at('seen.bf');
    const printed: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs = await Promise.all(
        ['a', 'b'].map((who) =>
          bloomkitAsync(['dedup', '--state', state, '--wait', '60', '--fpr', '1e-6'], {
            cwd: dir,
            input: `${who}-${round}\nshared-${round}\n`,
          }),
        ),
      );
      for (const run of runs) {
        expect([run.status, run.stderr]).toEqual([0, '']);
        printed.push(...run.stdout.split('\n').filter((line) => line !== ''));
      }
    }
    // Each round's shared line is printed by exactly one of the two runs.
    expect(printed.filter((line) => line.startsWith('shared-'))).toHaveLength(ROUNDS);
    expect(printed).toHaveLength(3 * ROUNDS);
    const final = ScalableBloomFilter.deserialize(readFileSync(state));
    expect(printed.filter((line) => !final.has(line))).toEqual([]);
    const again = bloomkit(['dedup', '--state', state], { cwd: dir, input: `${printed.join('\n')}\n` });
    expect(again.stdout).toBe('');
  }, 300_000);

  it(`two concurrent merges into one file, ${ROUNDS} rounds: the file holds both inputs' keys`, async () => {
    const out = at('merged.bf');
    const create = (file: string) =>
      expect(bloomkit(['create', file, '-n', '10000', '-p', '1e-6', '--force'], { cwd: dir }).status).toBe(0);
    create(out);
    const expected: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const inputs = ['a', 'b'].map((who) => {
        const file = at(`in-${who}.bf`);
        const filter = StandardBloomFilter.deserialize(readFileSync(out));
        filter.clear();
        filter.add(`${who}-${round}`);
        writeFileSync(file, filter.serialize());
        expected.push(`${who}-${round}`);
        return file;
      });
      const runs = await Promise.all(
        inputs.map((input) => bloomkitAsync(['merge', '--wait', '60', out, out, input], { cwd: dir })),
      );
      for (const run of runs) expect([run.status, run.stderr]).toEqual([0, '']);
    }
    const final = StandardBloomFilter.deserialize(readFileSync(out));
    expect(expected.filter((key) => !final.has(key))).toEqual([]);
  }, 300_000);

  it('of two creates without --force exactly one succeeds; a writer gives up after --wait with the holder named', async () => {
    for (let round = 0; round < 20; round++) {
      const file = at(`race-${round}.bf`);
      const runs = await Promise.all(
        [0, 1].map(() => bloomkitAsync(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })),
      );
      expect(runs.map((run) => run.status).sort()).toEqual([0, 2]);
      expect(runs.find((run) => run.status === 2)!.stderr).toMatch(/already exists/);
    }

    // A holder that stays: add reading keys from a stdin that stays open.
    const file = at('held.bf');
    bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const holder = startBloomkit(['add', file], dir);
    const held = join(dir, '.held.bf.lock');
    const deadline = Date.now() + 30_000;
    while (!existsSync(held)) {
      if (Date.now() > deadline) throw new Error('the holder never took the lock');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const waiter = bloomkit(['add', '--wait', '0.3', file, 'x'], { cwd: dir });
    expect(waiter.status).toBe(2);
    expect(waiter.stderr).toBe(
      `bloomkit: ${file}: locked by process ${holder.pid}, which is writing it; gave up after 0.3 s (--wait SECONDS waits longer)\n`,
    );

    // Killed with SIGKILL, the holder cannot release its lock: the next writer sees it dead and goes ahead.
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    expect(existsSync(held)).toBe(true);
    expect(bloomkit(['add', '--wait', '0', file, 'after-kill'], { cwd: dir }).status).toBe(0);
    expect(bloomkit(['has', file, 'after-kill'], { cwd: dir }).status).toBe(0);
    expect(existsSync(held)).toBe(false);

    // A lock that names no holder (its writer died between creating and filling it): waited for while fresh,
    // broken once it has been unchanged for 10 s.
    writeFileSync(held, '');
    const fresh = bloomkit(['add', '--wait', '0.2', file, 'y'], { cwd: dir });
    expect([fresh.status, fresh.stderr]).toEqual([
      2,
      `bloomkit: ${file}: locked by another process, which is writing it; gave up after 0.2 s (--wait SECONDS waits longer)\n`,
    ]);
    const past = new Date(Date.now() - 60_000);
    utimesSync(held, past, past);
    expect(bloomkit(['add', '--wait', '0', file, 'y'], { cwd: dir }).status).toBe(0);
    expect(existsSync(held)).toBe(false);
  }, 120_000);
});
