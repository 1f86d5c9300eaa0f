import { fileURLToPath } from 'node:url';
import { runCommonJs } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';

// CommonJS users: `require('@bloomkit/exceptions')` loads the ESM build, and adds the kind to the table of
// `@bloomkit/filters`, so `deserializeAny` reads its files.
describe('require() from CommonJS', () => {
  it('loads the built package; its files are read back directly and through the table', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const filters = fileURLToPath(new URL('../../filters', import.meta.url));
    const run = runCommonJs(
      `const { ExceptionFilter } = require(${JSON.stringify(pkg)});
const { deserializeAny } = require(${JSON.stringify(filters)});
const f = ExceptionFilter.create(10, 0.5, { seed: 1 });
f.add('x');
const flagged = Array.from({ length: 100 }, (_, i) => 'k' + i).find((key) => f.has(key) && key !== 'x');
f.addException(flagged);
const read = deserializeAny(f.serialize());
console.log(read.Class.kind.name, read.filter.has('x'), read.filter.has(flagged));`,
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('exceptions true false');
  });
});
