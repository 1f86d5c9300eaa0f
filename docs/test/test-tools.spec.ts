import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = new URL('../../scripts/ensure-test-tools.mjs', import.meta.url).pathname;

/** Runs the script with a PATH that holds only node: every tool the tests run is missing there. */
function withoutTools(env: Record<string, string>) {
  const bin = mkdtempSync(join(tmpdir(), 'bloomkit-no-tools-'));
  try {
    symlinkSync(process.execPath, join(bin, 'node'));
    return spawnSync(join(bin, 'node'), [script], { env: { PATH: bin, ...env }, encoding: 'utf8' });
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

describe('the test command asks before it installs anything', () => {
  it('without permission, prints the one command to run and exits non-zero, installing nothing', () => {
    const run = withoutTools({});
    expect(run.status).toBe(1);
    // python3-redis is checked with Debian's /usr/bin/python3 (a PATH of node alone cannot hide it where it is).
    expect(run.stderr).toMatch(
      /sudo apt-get install -y --no-install-recommends redis-server php-cli php-redis (python3-redis )?openssl chromium-headless-shell\n/,
    );
    expect(run.stderr).toContain('BLOOMKIT_INSTALL_TEST_TOOLS=1 pnpm test');
    expect(run.stderr).not.toContain('$ apt-get');
  });

  it('with BLOOMKIT_INSTALL_TEST_TOOLS=1 or on CI, goes on to install (here it stops: no apt-get on this PATH)', () => {
    for (const env of [{ BLOOMKIT_INSTALL_TEST_TOOLS: '1' }, { CI: 'true' }]) {
      const run = withoutTools(env);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/this machine has no apt-get/);
    }
  });

  it('is allowed to install by the README test command', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(
      'npx --yes pnpm@9.15.9 install --frozen-lockfile && BLOOMKIT_INSTALL_TEST_TOOLS=1 npx --yes pnpm@9.15.9 test',
    );
  });
});
