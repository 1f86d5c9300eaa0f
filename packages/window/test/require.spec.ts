import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// CommonJS users: `require('@bloomkit/window')` loads the ESM build; the kind is in the table of
// `@bloomkit/filters`, so `deserializeAny` reads its files.
describe('require() from CommonJS', () => {
  it('loads the built package; its files are read back directly and through the table', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const filters = fileURLToPath(new URL('../../filters', import.meta.url));
    const file = join(tmpdir(), `bloomkit-window-require-${process.pid}.cjs`);
    writeFileSync(
      file,
      `const { WindowBloomFilter } = require(${JSON.stringify(pkg)});
const { deserializeAny } = require(${JSON.stringify(filters)});
const f = WindowBloomFilter.create(10, 0.01, { seed: 1 });
for (let i = 0; i < 100; i++) f.add('k' + i);
const read = deserializeAny(f.serialize());
console.log(read.Class.kind.name, read.filter.has('k99'), f.add('k99'), f.add('new'));`,
    );
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    expect(run.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
    expect(run.stdout.trim()).toBe('window true false true');
  });
});
