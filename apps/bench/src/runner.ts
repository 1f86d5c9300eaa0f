import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Job, Measurement } from './job.js';

/** The compiled child entry: beside this file in dist/, or in ../dist/ when this file runs from src/ (tests). */
const CHILD = [new URL('./child.js', import.meta.url), new URL('../dist/child.js', import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((path) => existsSync(path));

/** Runs one job in a fresh Node process (its own heap and JIT state) and resolves with its measurement. */
export function runInChild(job: Job): Promise<Measurement> {
  const child = CHILD;
  if (child === undefined)
    return Promise.reject(new Error('apps/bench is not built: run `pnpm build` first'));
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [
      '--expose-gc',
      '--max-old-space-size=8192',
      child,
      JSON.stringify(job),
    ]);
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    proc.on('error', reject);
    proc.on('close', (status) => {
      if (status === 0) resolve(JSON.parse(stdout) as Measurement);
      else reject(new Error(`benchmark child for ${job.contender} failed (${status}):\n${stderr}`));
    });
  });
}

/** Runs jobs in order with at most `concurrency` children at once; `onStart` reports progress. */
export async function runAll(
  jobs: readonly Job[],
  concurrency: number,
  onStart: (index: number, job: Job) => void,
): Promise<Measurement[]> {
  const results = new Array<Measurement>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      onStart(index, jobs[index]!);
      results[index] = await runInChild(jobs[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}
