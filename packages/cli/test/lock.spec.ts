import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describe, expect, it } from 'vitest';
import { BIN, bloomkit, scratchDirectory, startBloomkit } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);
/**
 * The race tests start WRITERS processes at once, ROUNDS times: 200 lock handoffs each, every round a WRITERS-way
 * race for the lock (they were 200 rounds of 2: twice the processes started, for a weaker race, and 510 s of a
 * test's 600 s at load 8.5). A hung process fails its round at its own deadline (PROCESS_DEADLINE_MS,
 * support/run.ts), so the test as a whole gets an hour: the load of the machine makes it slower, never red.
 */
const WRITERS = 4;
const ROUNDS = 50;
const WHO = Array.from({ length: WRITERS }, (_, i) => String.fromCharCode(97 + i));
const RACE_TIMEOUT_MS = 3_600_000;

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
  it(
    `${WRITERS} concurrent adds to one file, ${ROUNDS} rounds: every key any reported added is in the file`,
    async () => {
      const file = at('shared.bf');
      expect((await bloomkit(['create', file, '-n', '10000', '-p', '1e-6'], { cwd: dir })).status).toBe(0);
      const acknowledged: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const runs = await Promise.all(
          WHO.map((who) => bloomkit(['add', '-v', '--wait', '60', file, `${who}-${round}`], { cwd: dir })),
        );
        for (const run of runs) {
          expect(run.stderr).toBe('');
          expect(run.status).toBe(0); // One new key each: "added" (add exits 0 when it succeeded).
          for (const [key, answer] of answers(run.stdout)) if (answer === 'added') acknowledged.push(key);
        }
      }
      expect(acknowledged).toHaveLength(WRITERS * ROUNDS);
      const final = StandardBloomFilter.deserialize(readFileSync(file));
      expect(acknowledged.filter((key) => !final.has(key))).toEqual([]);
      expect(final.count).toBe(WRITERS * ROUNDS);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    `${WRITERS} concurrent dedup --state runs, ${ROUNDS} rounds: every printed line is in the state`,
    async () => {
      const state = at('seen.bf');
      const printed: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const runs = await Promise.all(
          WHO.map((who) =>
            bloomkit(['dedup', '--state', state, '--wait', '60', '--fpr', '1e-6'], {
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
      // Each round's shared line is printed by exactly one of the runs.
      expect(printed.filter((line) => line.startsWith('shared-'))).toHaveLength(ROUNDS);
      expect(printed).toHaveLength((WRITERS + 1) * ROUNDS);
      const final = ScalableBloomFilter.deserialize(readFileSync(state));
      expect(printed.filter((line) => !final.has(line))).toEqual([]);
      const again = await bloomkit(['dedup', '--state', state], {
        cwd: dir,
        input: `${printed.join('\n')}\n`,
      });
      expect(again.stdout).toBe('');
    },
    RACE_TIMEOUT_MS,
  );

  it(
    `${WRITERS} concurrent merges into one file, ${ROUNDS} rounds: the file holds every input's keys`,
    async () => {
      const out = at('merged.bf');
      const create = async (file: string) =>
        expect(
          (await bloomkit(['create', file, '-n', '10000', '-p', '1e-6', '--force'], { cwd: dir })).status,
        ).toBe(0);
      await create(out);
      const expected: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const inputs = WHO.map((who) => {
          const file = at(`in-${who}.bf`);
          const filter = StandardBloomFilter.deserialize(readFileSync(out));
          filter.clear();
          filter.add(`${who}-${round}`);
          writeFileSync(file, filter.serialize());
          expected.push(`${who}-${round}`);
          return file;
        });
        const runs = await Promise.all(
          inputs.map((input) => bloomkit(['merge', '--wait', '60', out, out, input], { cwd: dir })),
        );
        for (const run of runs) expect([run.status, run.stderr]).toEqual([0, '']);
      }
      const final = StandardBloomFilter.deserialize(readFileSync(out));
      expect(expected.filter((key) => !final.has(key))).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  it('of two creates without --force exactly one succeeds; a writer gives up after --wait with the holder named', async () => {
    for (let round = 0; round < 20; round++) {
      const file = at(`race-${round}.bf`);
      const runs = await Promise.all(
        [0, 1].map(() => bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })),
      );
      expect(runs.map((run) => run.status).sort()).toEqual([0, 2]);
      expect(runs.find((run) => run.status === 2)!.stderr).toMatch(/already exists/);
    }

    // A holder that stays: add reading keys from a stdin that stays open.
    const file = at('held.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const holder = startBloomkit(['add', file], dir);
    const held = join(dir, '.held.bf.lock');
    const deadline = Date.now() + 30_000;
    while (!existsSync(held)) {
      if (Date.now() > deadline) throw new Error('the holder never took the lock');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const waiter = await bloomkit(['add', '--wait', '0.3', file, 'x'], { cwd: dir });
    expect(waiter.status).toBe(2);
    expect(waiter.stderr).toBe(
      `bloomkit: ${file}: locked by process ${holder.pid}, which is writing it; gave up after 0.3 s (--wait SECONDS waits longer)\n`,
    );

    // Killed with SIGKILL, the holder cannot release its lock: the next writer sees it dead and goes ahead.
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    expect(existsSync(held)).toBe(true);
    // Unless a fresh break file says another waiter is breaking it (a breaker that died, or a planted file): then
    // the error says the holder is gone and names the break file, never "which is writing it".
    writeFileSync(`${held}.break`, '999999');
    const blocked = await bloomkit(['add', '--wait', '0.2', file, 'x'], { cwd: dir });
    expect([blocked.status, blocked.stderr]).toEqual([
      2,
      `bloomkit: ${file}: held by process ${holder.pid}, which is gone, but ${held}.break says another process is breaking the lock; gave up after 0.2 s (if no writer runs, remove ${held}.break)\n`,
    ]);
    rmSync(`${held}.break`);
    expect((await bloomkit(['add', '--wait', '0', file, 'after-kill'], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['has', file, 'after-kill'], { cwd: dir })).status).toBe(0);
    expect(existsSync(held)).toBe(false);

    // A lock that names no holder (its writer died between creating and filling it): waited for while fresh,
    // broken once it has been unchanged for 10 s.
    writeFileSync(held, '');
    const fresh = await bloomkit(['add', '--wait', '0.2', file, 'y'], { cwd: dir });
    expect([fresh.status, fresh.stderr]).toEqual([
      2,
      `bloomkit: ${file}: locked by another process, which is writing it; gave up after 0.2 s (--wait SECONDS waits longer)\n`,
    ]);
    const past = new Date(Date.now() - 60_000);
    utimesSync(held, past, past);
    expect((await bloomkit(['add', '--wait', '0', file, 'y'], { cwd: dir })).status).toBe(0);
    expect(existsSync(held)).toBe(false);
  });

  it('a writer in another PID namespace, 40 rounds against one outside it: no acknowledged add lost', async () => {
    // `unshare -p -f --mount-proc`: the inner writer is pid 1 or 2 of its own namespace, with the host's name, as
    // containers with `--network host` are. Neither may take the other's live lock for a dead one.
    const file = at('namespaces.bf');
    expect((await bloomkit(['create', file, '-n', '10000', '-p', '1e-6'], { cwd: dir })).status).toBe(0);
    const acknowledged: string[] = [];
    const run = (argv: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    for (let round = 0; round < 40; round++) {
      const keys = Array.from({ length: 20 }, (_, i) => `${round}-${i}`);
      const runs = await Promise.all([
        run([
          'unshare',
          '-p',
          '-f',
          '--mount-proc',
          process.execPath,
          BIN,
          'add',
          '-v',
          '--wait',
          '60',
          file,
          ...keys.map((key) => `inner-${key}`),
        ]),
        run([process.execPath, BIN, 'add', '-v', '--wait', '60', file, ...keys.map((key) => `outer-${key}`)]),
      ]);
      for (const result of runs) {
        expect([result.status, result.stderr]).toEqual([0, '']);
        for (const [key, answer] of answers(result.stdout)) if (answer === 'added') acknowledged.push(key);
      }
    }
    expect(acknowledged).toHaveLength(2 * 40 * 20);
    const final = StandardBloomFilter.deserialize(readFileSync(file));
    expect(acknowledged.filter((key) => !final.has(key))).toEqual([]);
  });

  it('a lock of another PID namespace, boot or an older format is waited for and never broken', async () => {
    const file = at('foreign.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const lock = join(dir, '.foreign.bf.lock');
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidns = readlinkSync('/proc/self/ns/pid');
    // A pid that names no process here: in this namespace it would be proven dead.
    const gone = 4_194_000;
    for (const token of [
      { pid: gone, host: hostname(), start: '1', boot, pidns: 'pid:[1]' },
      { pid: gone, host: hostname(), start: '1', boot: 'another-boot', pidns },
      { pid: gone, host: hostname(), start: '1' },
    ]) {
      writeFileSync(lock, JSON.stringify(token));
      const waiter = await bloomkit(['add', '--wait', '0.3', file, 'x'], { cwd: dir });
      expect(waiter.status).toBe(2);
      expect(waiter.stderr).toContain('gave up after 0.3 s');
      expect(waiter.stderr).toContain(
        `cannot tell whether that process is alive: if no writer runs, remove ${lock}`,
      );
      expect(readFileSync(lock, 'utf8')).toBe(JSON.stringify(token));
    }
    // The same token with this process's boot and namespace is judged, and broken.
    writeFileSync(lock, JSON.stringify({ pid: gone, host: hostname(), start: '1', boot, pidns }));
    expect((await bloomkit(['add', '--wait', '0', file, 'x'], { cwd: dir })).status).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('a FIFO, a link or a huge file planted as the lock is refused at once, never read or followed', async () => {
    const file = at('planted.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const lock = join(dir, '.planted.bf.lock');
    const plant: [string, () => void, RegExp][] = [
      [
        'a FIFO',
        () => execFileSync('mkfifo', [lock]),
        /the lock is not a regular file \(a FIFO\); remove it/,
      ],
      ['a link to /dev/zero', () => symlinkSync('/dev/zero', lock), /the lock is a symbolic link/],
      ['a dangling link', () => symlinkSync(join(dir, 'nowhere'), lock), /the lock is a symbolic link/],
      ['a directory', () => mkdirSync(lock), /the lock is not a regular file \(a directory\)/],
      ['a 1 MB file', () => writeFileSync(lock, 'x'.repeat(1_000_000)), /the lock is 1000000 bytes/],
    ];
    for (const [what, make, message] of plant) {
      make();
      const run = await bloomkit(['add', '--wait', '5', file, 'x'], { cwd: dir });
      expect(run.status, what).toBe(2);
      expect(run.stderr, what).toMatch(message);
      expect(run.stderr, what).toContain(lock);
      execFileSync('rm', ['-rf', lock]);
    }
    expect((await bloomkit(['has', file, 'x'], { cwd: dir })).status).toBe(1);
  });

  it("another user's dead lock in a sticky directory: an error naming it, not a spin past --wait", async () => {
    // The writer runs as nobody; the dead holder's lock belongs to another user, which a sticky directory keeps
    // nobody from removing.
    // Beside the scratch directory (mode 0700, closed to nobody), in the system's temporary directory.
    const sticky = mkdtempSync(join(tmpdir(), 'bloomkit-sticky-'));
    chmodSync(sticky, 0o1777);
    const file = join(sticky, 'f.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    chmodSync(file, 0o666);
    const lock = join(sticky, '.f.bf.lock');
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    writeFileSync(
      lock,
      JSON.stringify({
        pid: 4_194_000,
        host: hostname(),
        start: '1',
        boot,
        pidns: readlinkSync('/proc/self/ns/pid'),
      }),
    );
    chownSync(lock, 1, 1);
    const run = spawnSyncAs(['add', '--wait', '2', file, 'x']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `${lock}: held by a process that is gone, but this user may not remove the lock`,
    );
    rmSync(sticky, { recursive: true });
  });

  it('a lock that cannot be written (ENOSPC) names itself and leaves no empty lock behind', async () => {
    const mount = at('full');
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount]);
    try {
      const file = join(mount, 'f.bf');
      expect((await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
      // Fill the rest: the lock can still be created (an inode), not written (a block).
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(mount, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
      } catch {
        // dd ends with ENOSPC, as intended.
      }
      const run = await bloomkit(['add', '--wait', '1', file, 'x'], { cwd: dir });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`${join(mount, '.f.bf.lock')}: could not write the lock (ENOSPC)`);
      expect(existsSync(join(mount, '.f.bf.lock'))).toBe(false);
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});

/** Runs the bin as the user nobody (uid 65534). */
function spawnSyncAs(args: readonly string[]): { status: number | null; stderr: string } {
  try {
    execFileSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args],
      {
        cwd: '/',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return { status: 0, stderr: '' };
  } catch (error) {
    const failed = error as { status: number | null; stderr: Buffer };
    return { status: failed.status, stderr: failed.stderr.toString() };
  }
}
