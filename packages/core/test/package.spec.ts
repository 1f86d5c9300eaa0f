import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// An installed package cannot follow the READMEs' links into this repository, so core ships the format
// specification itself: `@bloomkit/core/FORMAT.md`, copied from docs/FORMAT.md by the build.
describe('@bloomkit/core ships docs/FORMAT.md', () => {
  it('exports FORMAT.md, lists it in files, and the built copy is the specification', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.exports['./FORMAT.md']).toBe('./FORMAT.md');
    expect(pkg.files).toContain('FORMAT.md');
    const shipped = readFileSync(new URL('../FORMAT.md', import.meta.url), 'utf8');
    expect(shipped).toBe(readFileSync(new URL('../../../docs/FORMAT.md', import.meta.url), 'utf8'));
  });
});
