import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// CommonJS users: `require('@bloomkit/filters')` loads the ESM build, and through it every kind's package.
describe('require() from CommonJS', () => {
  it('loads the built package; a filter of any kind is created and read back', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const file = join(tmpdir(), `bloomkit-filters-require-${process.pid}.cjs`);
    writeFileSync(
      file,
      `const { createFilter, deserializeAny } = require(${JSON.stringify(pkg)});
const f = createFilter('scalable', { capacity: 100, fpr: 0.01 });
f.add('x');
const read = deserializeAny(f.serialize());
console.log(read.Class.kind.name, read.filter.has('x'), read.filter.has('y'));`,
    );
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    expect(run.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
    expect(run.stdout.trim()).toBe('scalable true false');
  });
});
