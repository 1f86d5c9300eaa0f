import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as internal from '../src/internal.js';
import * as kit from '../src/kit.js';

/** The names an entry file exports (`export { … }` and `export type { … }`), each with the doc comment before it. */
function exportsOf(file: string): { names: string[]; undocumented: string[] } {
  const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
  const blocks = [...source.matchAll(/(\/\*\*[\s\S]*?\*\/\n)?export (type )?\{([^}]*)\}/g)];
  const names = blocks.flatMap((m) =>
    m[3]!
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
      .map((name) => (m[2] === undefined ? name : `type ${name}`)),
  );
  const undocumented = blocks.filter((m) => m[1] === undefined).map((m) => m[3]!.trim());
  return { names, undocumented };
}

const runtime = (names: string[]) => names.filter((name) => !name.startsWith('type '));

describe('@bloomkit/core/internal', () => {
  it('is a small contract: at most 26 run-time names, each export documented', () => {
    const { names, undocumented } = exportsOf('internal.ts');
    // The engine, the codecs, shape planning, JSON, u64 fields, and kernel memory for counters and the window ring
    // (with the rule for handing its bytes out).
    expect(runtime(names).length).toBeLessThanOrEqual(26);
    expect(undocumented).toEqual([]);
    for (const name of runtime(names)) expect(internal).toHaveProperty(name);
  });
});

describe('@bloomkit/core/kit', () => {
  it('exports every name it lists, each documented, none of them also in internal', () => {
    const { names, undocumented } = exportsOf('kit.ts');
    expect(undocumented).toEqual([]);
    for (const name of runtime(names)) expect(kit).toHaveProperty(name);
    const inInternal = exportsOf('internal.ts').names.map((name) => name.replace('type ', ''));
    expect(
      names.map((name) => name.replace('type ', '')).filter((name) => inInternal.includes(name)),
    ).toEqual([]);
  });
});
