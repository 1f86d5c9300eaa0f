import { fileURLToPath } from 'node:url';
import { runCommonJs } from '@bloomkit/testkit';
import { describe, expect, it } from 'vitest';

// CommonJS users: `require('@bloomkit/standard')` loads the ESM build through the exports map's "default"
// condition (Node 20.19+ and 22.12+ can require an ES module). This runs the built package in a real .cjs file.
describe('require() from CommonJS', () => {
  it('loads the built package and its filter works', () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const run = runCommonJs(
      `const { StandardBloomFilter } = require(${JSON.stringify(pkg)});
const f = StandardBloomFilter.create(100, 0.01);
f.add('x');
console.log(f.has('x'), f.has('y'), StandardBloomFilter.deserialize(f.serialize()).has('x'));`,
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('true false true');
  });
});
