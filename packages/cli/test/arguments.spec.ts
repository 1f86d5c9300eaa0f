import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();

/**
 * Runs `bloomkit` with arguments given as raw bytes (spawn takes only strings, which it encodes as UTF-8): a shell
 * script with `printf` escapes builds them.
 */
function withRawArguments(script: string) {
  const result = spawnSync('sh', ['-c', `exec "$NODE" "$BIN" ${script}`], {
    cwd: dir,
    env: { ...process.env, NODE: process.execPath, BIN },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

describe('keys on the command line are the bytes typed', () => {
  it('invalid UTF-8 arguments keep their identity, and match the same bytes from --from', async () => {
    const file = join(dir, 'bytes.bf');
    await bloomkit(['create', file, '-n', '1000', '-p', '1e-9'], { cwd: dir });
    const add = withRawArguments(`add -v '${file}' "$(printf '\\377')" "$(printf 'caf\\303\\251')"`);
    expect([add.status, add.stderr]).toEqual([0, '']);
    expect(add.stdout).toEqual(Buffer.concat([Buffer.from([0xff]), Buffer.from('\tadded\ncafé\tadded\n')]));
    // \xfe and \xff were one key (U+FFFD) before: now \xfe is another key, absent.
    expect(withRawArguments(`has '${file}' "$(printf '\\376')"`).status).toBe(1);
    expect(withRawArguments(`has '${file}' "$(printf '\\377')"`).status).toBe(0);
    expect((await bloomkit(['has', file, '\uFFFD'], { cwd: dir })).status).toBe(1);
    // The same bytes as a line of a file.
    writeFileSync(join(dir, 'ff.txt'), Buffer.from([0xff, 0x0a]));
    expect((await bloomkit(['has', file, '--from', join(dir, 'ff.txt')], { cwd: dir })).status).toBe(0);
    writeFileSync(join(dir, 'fe.txt'), Buffer.from([0xfe, 0x0a]));
    expect((await bloomkit(['has', file, '--from', join(dir, 'fe.txt')], { cwd: dir })).status).toBe(1);
    // A key added from a file is found when typed.
    writeFileSync(join(dir, 'fd.txt'), Buffer.from([0x61, 0xfd, 0x0a]));
    expect((await bloomkit(['add', file, '--from', join(dir, 'fd.txt')], { cwd: dir })).status).toBe(0);
    expect(withRawArguments(`has '${file}' "$(printf 'a\\375')"`).status).toBe(0);
  });

  it('an argument that starts with a byte order mark changes nothing for the others', async () => {
    const file = join(dir, 'bom.bf');
    await bloomkit(['create', file, '-n', '1000', '-p', '1e-9'], { cwd: dir });
    // U+FEFF then "x": a valid argument; \xff beside it must still be taken as its byte, not refused.
    const add = withRawArguments(`add -v '${file}' "$(printf '\\357\\273\\277x')" "$(printf '\\377')"`);
    expect([add.status, add.stderr]).toEqual([0, '']);
    expect(add.stdout).toEqual(
      Buffer.concat([Buffer.from('\uFEFFx\tadded\n'), Buffer.from([0xff]), Buffer.from('\tadded\n')]),
    );
    expect(withRawArguments(`has '${file}' "$(printf '\\357\\273\\277x')"`).status).toBe(0);
    expect((await bloomkit(['has', file, 'x'], { cwd: dir })).status).toBe(1);
    expect(withRawArguments(`has '${file}' "$(printf '\\376')"`).status).toBe(1);
  });
});
