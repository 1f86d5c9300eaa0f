import { fileURLToPath } from 'node:url';
import { runCommonJs } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';

// CommonJS users: `require('@bloomkit/window')` loads the ESM build; the kind is in the table of
// `@bloomkit/filters`, so `deserializeAny` reads its files.
describe('require() from CommonJS', () => {
  it('loads the built package; its files are read back directly and through the table', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const filters = fileURLToPath(new URL('../../filters', import.meta.url));
    const run = runCommonJs(
      `const { WindowBloomFilter } = require(${JSON.stringify(pkg)});
const { deserializeAny } = require(${JSON.stringify(filters)});
const f = WindowBloomFilter.create(10, 0.01, { seed: 1 });
for (let i = 0; i < 100; i++) f.add('k' + i);
const read = deserializeAny(f.serialize());
console.log(read.Class.kind.name, read.filter.has('k99'), f.add('k99'), f.add('new'));`,
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('window true false true');
  });
});
