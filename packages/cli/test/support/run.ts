import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built bin, as a user runs it (`pnpm test` builds before testing). */
export const BIN: string = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly bytes: Buffer;
}

/**
 * A process that has not exited this long after it started is taken for hung: killed, and the run rejected. Generous
 * (a `bloomkit` run of the tests takes well under a second on an idle machine), so that a loaded machine only makes a
 * test slower; tests that start many processes rely on it instead of a short timeout of their own.
 */
export const PROCESS_DEADLINE_MS = 120_000;

/**
 * Runs `bloomkit ARGS` in `cwd` with `input` on stdin, and resolves when it has exited; rejects past
 * {@link PROCESS_DEADLINE_MS}. Never blocking: a test that runs processes one after another keeps its worker
 * answering the runner (a spawnSync per run held a worker for 47 s in one test on a loaded machine).
 */
export function bloomkit(
  args: readonly string[],
  options: { cwd: string; input?: string | Buffer; env?: NodeJS.ProcessEnv },
): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bloomkit ${args.join(' ')} had not exited after ${PROCESS_DEADLINE_MS} ms: hung`));
    }, PROCESS_DEADLINE_MS);
    child.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    child.on('close', (status) => {
      clearTimeout(deadline);
      const bytes = Buffer.concat(out);
      resolve({ status, stdout: bytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), bytes });
    });
  });
}

/** The same, asynchronously, for tests that interfere with a running process. */
export function startBloomkit(args: readonly string[], cwd: string) {
  return spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A fresh directory for this test file, removed after it. */
export function scratchDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bloomkit-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
