import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// No package's source imports itself round in a circle at run time: a module in a circle can run before the
// module it needs has finished (its bindings are then undefined), depending only on which file was imported first.
// Type-only imports are left out: they are gone from the built JavaScript.

const root = new URL('../../', import.meta.url).pathname;
const sourceDirs = ['packages', 'apps']
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name, 'src')))
  .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true);

/** Every .ts file under `dir` but declarations. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative modules `text` imports or re-exports at run time (not `import type`, not `{ type A, type B }`). */
function runtimeImports(text: string): string[] {
  const out: string[] = [];
  const pattern = /^(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'(\.[^']+)'/gms;
  for (const match of text.matchAll(pattern)) {
    if (match[2] !== undefined) continue;
    const names = /^\{([^}]*)\}$/.exec(match[3]!.trim());
    const typesOnly =
      names !== null &&
      names[1]!
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
        .every((name) => name.startsWith('type '));
    if (!typesOnly) out.push(match[4]!);
  }
  return out;
}

/** The circles of a graph (module → modules it imports), each as the modules along it, its first at both ends. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (module: string): void => {
    const at = path.indexOf(module);
    if (at >= 0) {
      found.push([...path.slice(at), module]);
      return;
    }
    if (done.has(module)) return;
    path.push(module);
    for (const next of graph.get(module) ?? []) visit(next);
    path.pop();
    done.add(module);
  };
  for (const module of graph.keys()) visit(module);
  return found;
}

function graphOf(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(dir)) {
    const imports = runtimeImports(readFileSync(file, 'utf8')).map((specifier) =>
      relative(dir, join(dirname(file), specifier.replace(/\.js$/, '.ts'))),
    );
    graph.set(relative(dir, file), imports);
  }
  return graph;
}

describe('import circles', () => {
  for (const dir of sourceDirs) {
    it(`${relative(root, dir)}: none at run time`, () => {
      expect(circles(graphOf(dir)).map((circle) => circle.join(' -> '))).toEqual([]);
    });
  }

  it('finds a planted circle, and leaves type-only imports out', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, f } from './e.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
      "import { i } from '@bloomkit/core';",
    ].join('\n');
    expect(runtimeImports(text)).toEqual(['./a.js', './e.js', './g.js']);
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    graph.set('c.ts', ['d.ts']);
    expect(circles(graph)).toEqual([]);
  });
});
