import { spawn } from 'node:child_process';

/**
 * Runs a side report's measurement in a fresh process (`node [NODE_FLAGS…] SCRIPT ARGS…`), as every measurement runs: the
 * script prints its result as JSON on stdout and its progress on stderr, a line at a time, which goes to
 * `progress`. In the bench's own process, with its other modules and their heap beside it, the readers measured
 * about a third of their rate in a process of their own.
 */
export function runInChild<T>(
  flag: string,
  script: string,
  args: readonly string[],
  progress: (line: string) => void,
  nodeFlags: readonly string[] = [],
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const lines = err.split('\n');
      err = lines.pop()!;
      for (const line of lines) progress(line);
    });
    child.on('error', reject);
    child.on('close', (status) => {
      if (status === 0) resolve(JSON.parse(out) as T);
      else reject(new Error(`${flag}: the measuring process exited with status ${status}: ${err}`));
    });
  });
}
