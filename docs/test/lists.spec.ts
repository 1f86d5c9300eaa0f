import { readdirSync, readFileSync } from 'node:fs';
import { kinds } from '@bloomkit/filters';
import { describe, expect, it } from 'vitest';

/**
 * Lists in the docs that repeat what the code holds (the table's kinds, the packages, the Node versions) are held to the code here, so a kind or package added without its docs fails a test.
 */
const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const json = (path: string) => JSON.parse(read(path)) as Record<string, unknown>;

/** The kinds a filter is (every kind of the table but wrappers, such as the exception list). */
const filterKinds = kinds()
  .filter((Class) => Class.kind.params !== 'wrapper')
  .map((Class) => Class.kind.name);

/** The text of `doc` from the first occurrence of `from` to the next blank line. */
function paragraph(doc: string, from: string): string {
  const at = doc.indexOf(from);
  expect(at, `"${from}"`).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n\n', at);
  return doc.slice(at, end < 0 ? undefined : end);
}

describe('kind lists name every kind of the table', () => {
  it.each([
    ['packages/exceptions/README.md', 'Works over any bloomkit filter kind'],
    ['packages/cli/README.md', 'Kinds are'],
    ['apps/bench/README.md', '**Contenders:**'],
  ])('%s (%s …)', (path, from) => {
    const text = paragraph(read(path), from);
    for (const name of filterKinds) expect(text, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("the root README's “which kind” table links every kind's package", () => {
    const table = paragraph(read('README.md'), '| you need | kind | package |');
    // Each kind's package has the kind's name.
    for (const name of filterKinds) expect(table, name).toContain(`(packages/${name})`);
    for (const dir of ['exceptions', 'redis', 'filters', 'cli'])
      expect(table, dir).toContain(`(packages/${dir})`);
  });
});

describe('CONTRIBUTING', () => {
  const contributing = read('CONTRIBUTING.md');

  it('maps every package (How the packages fit)', () => {
    const map = paragraph(contributing, '```\n@bloomkit/core');
    for (const dir of readdirSync(new URL('packages/', root))) {
      const name = json(`packages/${dir}/package.json`).name as string;
      expect(map, name).toContain(name);
    }
  });

  it('gives its example kind an id no kind of the table has', () => {
    const id = Number(/^\s+id: (\d+),/m.exec(contributing)![1]);
    expect(kinds().map((Class) => Class.kind.id)).not.toContain(id);
    expect(id).toBeGreaterThanOrEqual(128); // a private id: bloomkit's own take the next free one
  });

  it('says where WebAssembly modules live and how they are built, naming none (the build test knows them)', () => {
    const section = contributing.slice(
      contributing.indexOf('## WebAssembly'),
      contributing.indexOf('## Releasing'),
    );
    for (const place of ['`src/wasm/*.wat`', '`scripts/build-wasm.mjs`', '`docs/test/wasm-build.spec.ts`']) {
      expect(section, place).toContain(place);
    }
    expect(section).not.toMatch(/`[a-z0-9]+\.wat`/);
  });
});

describe('Node versions', () => {
  const packages = readdirSync(new URL('packages/', root)).map((dir) => json(`packages/${dir}/package.json`));
  const published = packages.filter((pkg) => pkg.private !== true);

  it('every published package needs the same Node versions, and the root README says which', () => {
    const ranges = new Set(published.map((pkg) => (pkg.engines as { node: string }).node));
    expect([...ranges]).toEqual(['^20.19.0 || >=22.12.0']);
    // "^20.19.0 || >=22.12.0" as a reader is told it.
    expect(read('README.md')).toContain('Node.js 20.19+ (or 22.12+)');
    expect(read('README.md')).not.toMatch(/Node\.js 20(?![.\d])/);
  });
});

describe('TypeScript settings', () => {
  it('the root README names the set-up that cannot work, its error and its fix (the release test checks each)', () => {
    const readme = read('README.md');
    const release = read('docs/test/release.spec.ts');
    expect(readme).toContain('error TS1479');
    expect(release).toContain("fails: 'error TS1479'");
    for (const setting of ['bundler', 'nodenext', 'node16', 'node10']) {
      expect(readme, setting).toContain(`\`${setting}\``);
      expect(release, setting).toContain(`'${setting}`);
    }
  });
});
