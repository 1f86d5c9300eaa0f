import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bloomkit, scratchDirectory } from './support/run.js';

const dir = scratchDirectory();
const at = (name: string) => join(dir, name);

describe('every error is one line, `bloomkit: FILE: problem`, exit 2', () => {
  it('truncated, corrupt, a directory, a missing directory, contradictory calc options', async () => {
    const file = at('good.bf');
    await bloomkit(['create', file, '-n', '100', '-p', '0.01'], { cwd: dir });
    const bytes = readFileSync(file);
    writeFileSync(at('truncated.bf'), bytes.subarray(0, bytes.length - 7));
    const corrupt = Buffer.from(bytes);
    corrupt[40]! ^= 0xff;
    writeFileSync(at('corrupt.bf'), corrupt);
    mkdirSync(at('a-directory.bf'));
    const cases: [string[], RegExp][] = [
      [['has', at('truncated.bf'), 'k'], /^bloomkit: \S+truncated\.bf: header announces .* \(truncated\?\)$/],
      [['add', at('truncated.bf'), 'k'], /^bloomkit: \S+truncated\.bf: header announces .* \(truncated\?\)$/],
      [['has', at('corrupt.bf'), 'k'], /^bloomkit: \S+corrupt\.bf: checksum mismatch .*corrupt$/],
      [
        ['has', at('a-directory.bf'), 'k'],
        /^bloomkit: \S+a-directory\.bf: is a directory, not a filter file$/,
      ],
      [
        ['add', at('a-directory.bf'), 'k'],
        /^bloomkit: \S+a-directory\.bf: is a directory, not a filter file$/,
      ],
      [
        ['create', at('no/such/dir.bf'), '-n', '1', '-p', '0.1'],
        /^bloomkit: \S+no\/such\/dir\.bf: no such file or directory$/,
      ],
      [['merge', at('no/such/out.bf'), file], /^bloomkit: \S+no\/such\/out\.bf: no such file or directory$/],
      [
        ['calc', '-n', '1e6', '-p', '0.01', '-m', '100'],
        /^bloomkit: calc: --capacity, --bits and --fpr together over-determine/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await bloomkit(args, { cwd: dir });
      expect([args, run.status]).toEqual([args, 2]);
      const lines = run.stderr.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
    }
  });
});
