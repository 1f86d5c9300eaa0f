import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { describe, expect, it } from 'vitest';
import { BIN, bloomkit, scratchDirectory, startBloomkit } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);

function keys(prefix: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += `https://${prefix}.example/${i}/${(i * 2654435761) % 1_000_003}\n`;
  return out;
}

/** Collects a child's stdout and stderr and resolves with them and its exit status. */
function finished(child: ReturnType<typeof startBloomkit>) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdin.on('error', () => undefined); // The run may stop before it read all its input.
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) =>
      resolve({ status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    ),
  );
}

/** Resolves once process `pid` holds `path` open (its /proc fd table), so a signal then finds it waiting on it. */
async function untilOpened(pid: number, path: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      // Not started yet, or gone: look again.
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === path) return;
      } catch {
        // Closed meanwhile.
      }
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} never opened ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Writes `bytes` into the FIFO at `path` the moment some process has it open for reading, in one write, and closes
 * it at once. A non-blocking open fails with ENXIO until a reader is there; it is tried in a tight loop (microseconds
 * apart) for up to 5 s, so the write lands within microseconds of the reader's open, then every 10 ms up to 30 s.
 */
async function writeOnceOpened(path: string, bytes: Uint8Array): Promise<void> {
  const started = Date.now();
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENXIO') throw error;
    }
    if (fd !== undefined) {
      try {
        expect(writeSync(fd, bytes)).toBe(bytes.length);
      } finally {
        closeSync(fd);
      }
      return;
    }
    const waited = Date.now() - started;
    if (waited > 30_000) throw new Error(`no process opened ${path} to read it`);
    if (waited > 5_000) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const SIGNALS = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const;

describe('stop signals', () => {
  for (const [signal, status] of SIGNALS) {
    it(`${signal} during add -v --from: exit ${status}, and every key printed "added" is in the committed file`, async () => {
      const file = at(`add-${signal}.bf`);
      expect((await bloomkit(['create', file, '-n', '2000000', '-p', '1e-6'], { cwd: dir })).status).toBe(0);
      // A FIFO as --from: the run blocks mid-input, after the keys written so far, until the signal.
      const fifo = at(`keys-${signal}.fifo`);
      execFileSync('mkfifo', [fifo]);
      const child = startBloomkit(['add', '-v', '--from', fifo, file], dir);
      const result = finished(child);
      // Opened and written off the main thread: a run that failed to start cannot hang the test.
      const writer = await open(fifo, 'w');
      await writer.writeFile(keys(signal, 300_000));
      // Let the run read what was sent, then stop it while it waits for more.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      child.kill(signal);
      const { status: got, stdout, stderr } = await result;
      await writer.close();
      expect([got, stderr]).toEqual([status, '']);
      const printed = stdout.split('\n').filter((line) => line !== '');
      expect(printed.length).toBeGreaterThan(0);
      const filter = StandardBloomFilter.deserialize(readFileSync(file));
      const missing = printed.filter((line) => {
        const [key, answer] = line.split('\t');
        return answer !== 'added' || !filter.has(key!);
      });
      expect(missing).toEqual([]);
      expect(filter.count).toBe(printed.length);
    });

    it(`${signal} during dedup --state: exit ${status}; state holds every printed line; a rerun completes a clean run's output`, async () => {
      const state = at(`dedup-${signal}.bf`);
      const lines = keys(`d${signal}`, 400_000).split('\n').slice(0, -1);
      // 30% repeats, deterministic.
      for (let i = 0; i < lines.length; i += 10) lines[i] = lines[(i * 7) % (i + 1)]!;
      const input = `${lines.join('\n')}\n`;
      const clean = (await bloomkit(['dedup', '--fpr', '1e-9'], { cwd: dir, input })).stdout;

      const child = startBloomkit(['dedup', '--state', state, '--fpr', '1e-9'], dir);
      const result = finished(child);
      const half = input.indexOf('\n', input.length >> 1) + 1;
      child.stdin.write(input.slice(0, half));
      let seen = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.length;
      });
      // Wait for output to flow (the run has handled a good part of the half), then stop it mid-stream.
      const deadline = Date.now() + 30_000;
      while (seen < 1 << 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill(signal);
      const first = await result;
      expect([first.status, first.stderr]).toEqual([status, '']);
      expect(first.stdout.endsWith('\n')).toBe(true);
      expect(clean.startsWith(first.stdout)).toBe(true);
      const printed = first.stdout.split('\n').slice(0, -1);
      const filter = ScalableBloomFilter.deserialize(readFileSync(state));
      expect(printed.filter((line) => !filter.has(line))).toEqual([]);

      const resumed = await bloomkit(['dedup', '--state', state], { cwd: dir, input });
      expect(resumed.status).toBe(0);
      expect(first.stdout + resumed.stdout).toBe(clean);
    });
  }

  for (const [signal, status] of SIGNALS) {
    it(`${signal} while info, has or merge waits on a FIFO that no one writes: exit ${status}, nothing written`, async () => {
      const out = at(`merge-out-${signal}.bf`);
      expect((await bloomkit(['create', out, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
      const before = readFileSync(out);
      for (const args of [['info'], ['has'], ['merge', out, out]]) {
        const fifo = at(`empty-${signal}-${args[0]}.fifo`);
        execFileSync('mkfifo', [fifo]);
        const child = startBloomkit(args[0] === 'has' ? [...args, fifo, 'x'] : [...args, fifo], dir);
        const result = finished(child);
        // Once the run has the FIFO open it waits for a writer that never comes: it must still see the signal.
        await untilOpened(child.pid!, fifo);
        child.kill(signal);
        const { status: got, stderr } = await result;
        expect([args[0], got]).toEqual([args[0], status]);
        expect(stderr).toMatch(/interrupted/);
      }
      expect(readFileSync(out)).toEqual(before);
    });

    it(`${signal} while add, has, dedup or push waits on a FIFO of keys or of a password that no one opens to write: exit ${status}, the filter unchanged`, async () => {
      const file = at(`keys-target-${signal}.bf`);
      expect((await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
      const before = readFileSync(file);
      for (const args of [
        ['add', file, '--from'],
        ['has', file, '--from'],
        ['dedup'],
        // No server listens on port 1: the run never gets that far.
        ['push', file, 'redis://127.0.0.1:1/never', '--password-file'],
      ]) {
        const fifo = at(`unwritten-${signal}-${args[0]}.fifo`);
        execFileSync('mkfifo', [fifo]);
        const child = startBloomkit([...args, fifo], dir);
        const result = finished(child);
        // A run held in open(2) by the FIFO never shows it among its descriptors: killed, so no process outlives
        // the test.
        await untilOpened(child.pid!, fifo).catch((error: unknown) => {
          child.kill('SIGKILL');
          throw error;
        });
        child.kill(signal);
        // A run that does not see the signal is killed after 20 s: status null.
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        const { status: got } = await result.finally(() => clearTimeout(timer));
        expect([args[0], got]).toEqual([args[0], status]);
      }
      expect(readFileSync(file)).toEqual(before);
    });
  }

  it('a filter through a FIFO or a pipe is read as a stream: info, has and merge answer as from a file', async () => {
    const file = at('streamed.bf');
    expect((await bloomkit(['create', file, '-n', '1000', '-p', '0.01'], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['add', file, 'a', 'b'], { cwd: dir })).status).toBe(0);
    const bytes = readFileSync(file);
    const fromFile = await bloomkit(['info', '--json', file], { cwd: dir });
    // A pipe: /dev/stdin of a run whose input is the file's bytes.
    const piped = await bloomkit(['info', '--json', '/dev/stdin'], { cwd: dir, input: bytes });
    expect(piped.status).toBe(0);
    expect({ ...JSON.parse(piped.stdout), file: '' }).toEqual({ ...JSON.parse(fromFile.stdout), file: '' });
    expect((await bloomkit(['has', '/dev/stdin', 'a'], { cwd: dir, input: bytes })).status).toBe(0);
    expect((await bloomkit(['has', '/dev/stdin', 'zzz'], { cwd: dir, input: bytes })).status).toBe(1);
    // A FIFO written in slow pieces.
    const fifo = at('streamed.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = startBloomkit(['info', '--json', fifo], dir);
    const result = finished(child);
    const writer = await open(fifo, 'w');
    for (let at = 0; at < bytes.length; at += 300) {
      await writer.write(bytes.subarray(at, at + 300));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await writer.close();
    const { status, stdout } = await result;
    expect(status).toBe(0);
    expect({ ...JSON.parse(stdout), file: '' }).toEqual({ ...JSON.parse(fromFile.stdout), file: '' });
    // A writer that puts all of it in the FIFO the instant a reader is there, and leaves: the run must read it through
    // the descriptor it first opened (a second open would find the bytes gone with the first reader, and wait forever).
    for (const args of [['info', '--json'], ['has'], ['merge', at('merged-from-fifo.bf')]]) {
      const eager = at(`eager-${args[0]}.fifo`);
      execFileSync('mkfifo', [eager]);
      const run = startBloomkit(args[0] === 'has' ? [...args, eager, 'a'] : [...args, eager], dir);
      const ran = finished(run);
      await writeOnceOpened(eager, bytes);
      const timer = setTimeout(() => run.kill('SIGKILL'), 20_000);
      const got = await ran.finally(() => clearTimeout(timer));
      expect([args[0], got.status, got.stderr]).toEqual([args[0], 0, '']);
      if (args[0] === 'info') {
        expect({ ...JSON.parse(got.stdout), file: '' }).toEqual({ ...JSON.parse(fromFile.stdout), file: '' });
      }
    }
    expect(readFileSync(at('merged-from-fifo.bf'))).toEqual(bytes);
    // A writer that opens the FIFO and leaves having written nothing ends the stream: 0 bytes, refused at once.
    const emptied = at('emptied.fifo');
    execFileSync('mkfifo', [emptied]);
    const waiting = startBloomkit(['info', emptied], dir);
    const answered = finished(waiting);
    await writeOnceOpened(emptied, new Uint8Array(0));
    const killer = setTimeout(() => waiting.kill('SIGKILL'), 20_000);
    expect(await answered.finally(() => clearTimeout(killer))).toMatchObject({
      status: 2,
      stderr: `bloomkit: ${emptied}: input is 0 bytes, shorter than the smallest filter file (28 bytes)\n`,
    });
    // A stream longer than its header says, or a foreign one, is refused with the input named.
    const longer = await bloomkit(['info', '/dev/stdin'], {
      cwd: dir,
      input: Buffer.concat([bytes, Buffer.alloc(9)]),
    });
    expect([longer.status, longer.stderr]).toEqual([
      2,
      `bloomkit: /dev/stdin: the stream goes on past ${bytes.length} bytes, the length its header gives\n`,
    ]);
    // A foreign stream is refused by its header, as a file is, not read on to a length it never claimed.
    const zeros = await bloomkit(['info', '/dev/zero'], { cwd: dir });
    expect([zeros.status, zeros.stderr]).toEqual([
      2,
      'bloomkit: /dev/zero: not a bloomkit filter (magic bytes are not "BLMK")\n',
    ]);
  });

  it('a stream that ends before its first byte (/dev/null, an anonymous pipe whose writer left) is refused at once, not waited on', async () => {
    const file = at('late.bf');
    expect((await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir })).status).toBe(0);
    expect((await bloomkit(['add', file, 'a'], { cwd: dir })).status).toBe(0);
    const empty = (path: string) =>
      `bloomkit: ${path}: input is 0 bytes, shorter than the smallest filter file (28 bytes)\n`;
    for (const args of [['info'], ['has'], ['merge', at('merged-from-nothing.bf')]]) {
      const tail = args[0] === 'has' ? ['a'] : [];
      // A device that reads as ended at once.
      expect(await shell([...args, '/dev/null', ...tail])).toEqual([2, empty('/dev/null')]);
      // The shell's `<(...)`: descriptor 3 of the run is the read end of a pipe whose writer has ended, having written
      // nothing; or writes the filter a second late, which is waited for.
      expect(await shell([...args, '/dev/fd/3', ...tail], 'true')).toEqual([2, empty('/dev/fd/3')]);
      expect([args[0], await shell([...args, '/dev/fd/3', ...tail], `sleep 1; cat '${file}'`)]).toEqual([
        args[0],
        [0, ''],
      ]);
    }
    expect(existsSync(at('merged-from-nothing.bf'))).toBe(true);

    /** Runs bloomkit under bash, its descriptor 3 read from `writer`'s output when given: its status and stderr. */
    async function shell(args: string[], writer?: string): Promise<[number | null, string]> {
      const quoted = args.map((a) => `'${a}'`).join(' ');
      const script = `exec '${process.execPath}' '${BIN}' ${quoted}${writer === undefined ? '' : ` 3< <(${writer})`}`;
      const run = spawn('bash', ['-c', script], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
      run.stdin.end();
      const timer = setTimeout(() => run.kill('SIGKILL'), 20_000); // killed: it waited on a stream that had ended
      const { status, stderr } = await finished(run).finally(() => clearTimeout(timer));
      return [status, stderr];
    }
  });
});
