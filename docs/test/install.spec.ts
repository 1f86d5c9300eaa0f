import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const prefix = mkdtempSync(join(tmpdir(), 'bloomkit-global-'));
afterAll(() => rmSync(prefix, { recursive: true, force: true }));

function run(
  file: string,
  args: string[],
  input?: string,
): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    // npm_config_prefix stands in for the user's global prefix, so the test installs nothing outside its folder.
    // stdin is a pipe only when there is input: a child that exits without reading it would fail the write (EPIPE).
    const child = spawn(file, args, {
      cwd: root,
      env: { ...process.env, npm_config_prefix: prefix },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout }));
    if (input !== undefined) {
      child.stdin!.on('error', reject);
      child.stdin!.end(input);
    }
  });
}

describe("the CLI README's line for a clone", () => {
  const readme = readFileSync(join(root, 'packages/cli/README.md'), 'utf8');
  const line = readme.split('\n').find((text) => text.endsWith('npm install --global ./packages/cli'));

  it('installs, builds, then links the command', () => {
    expect(line).toBe(
      'npx --yes pnpm@9.15.9 install --frozen-lockfile && npx --yes pnpm@9.15.9 build && npm install --global ./packages/cli',
    );
  });

  it('puts a working bloomkit on the PATH (its last step, after the build the test command already ran)', async () => {
    const install = await run('npm', ['install', '--global', './packages/cli', '--no-audit', '--no-fund']);
    expect(install.status).toBe(0);
    const bin = join(prefix, 'bin', 'bloomkit');
    const version = JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8')).version;
    expect((await run(bin, ['--version'])).stdout.trim()).toBe(version);
    const dedup = await run(bin, ['dedup'], 'b\na\nb\nc\na\n');
    expect(dedup).toEqual({ status: 0, stdout: 'b\na\nc\n' });
  });
});
