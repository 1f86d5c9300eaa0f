import { fileURLToPath } from 'node:url';
import { runCommonJs } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';

// CommonJS users: `require('@bloomkit/filters')` loads the ESM build, and through it every kind's package.
describe('require() from CommonJS', () => {
  it('loads the built package; a filter of any kind is created and read back', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const run = runCommonJs(
      `const { createFilter, deserializeAny } = require(${JSON.stringify(pkg)});
const f = createFilter('scalable', { capacity: 100, fpr: 0.01 });
f.add('x');
const read = deserializeAny(f.serialize());
console.log(read.Class.kind.name, read.filter.has('x'), read.filter.has('y'));`,
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('scalable true false');
  });
});
