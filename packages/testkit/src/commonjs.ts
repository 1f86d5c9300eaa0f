import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a CommonJS script printed: stdout, and stderr without Node's notes on requiring an ES module. */
export interface CommonJsRun {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `source` as a real `.cjs` file in a fresh Node process, the way a CommonJS user's code loads a built package
 * with `require` (Node 20.19+ and 22.12+ can require an ES module). The file lives in a directory of its own, removed
 * afterwards, so a run leaves nothing in the temporary directory.
 */
export function runCommonJs(source: string): CommonJsRun {
  const dir = mkdtempSync(join(tmpdir(), 'bloomkit-require-'));
  try {
    const file = join(dir, 'user.cjs');
    writeFileSync(file, source);
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    return {
      stdout: run.stdout,
      stderr: run.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, ''),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
