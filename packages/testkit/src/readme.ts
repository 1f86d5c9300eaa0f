import { readFileSync } from 'node:fs';
import { format } from 'node:util';

/**
 * Runs the first ```ts block of a README as a test would: its `import { A, B } from 'pkg'` lines are bound to the
 * given modules, and each `console.log(...)` whose line ends in `// → text` must print exactly `text`. Returns
 * what was printed and what the annotations expect, in order, so the caller can compare them.
 */
export async function runQuickStart(
  readmePath: string,
  modules: Readonly<Record<string, object>>,
  globals: Readonly<Record<string, unknown>> = {},
  /** Which ```ts block, 0 for the first (the Quick start). */
  block = 0,
): Promise<{ printed: string[]; expected: string[] }> {
  const readme = readFileSync(readmePath, 'utf8');
  const match = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)][block];
  if (match === undefined) throw new Error(`${readmePath}: no \`\`\`ts block number ${block}`);
  const expected: string[] = [];
  const bindings: string[] = [];
  // Imports may span lines (`import {\n  A,\n  B,\n} from 'pkg';`): each becomes a destructuring of the module.
  const source = match[1]!.replace(
    /^import \{([^}]+)\} from '([^']+)';$/gm,
    (_, names: string, from: string) => {
      if (modules[from] === undefined) throw new Error(`${readmePath}: no module given for '${from}'`);
      const list = names.replace(/\btype\s+\w+\s*,?/g, '').replace(/\s+/g, ' ');
      bindings.push(`const {${list}} = __modules[${JSON.stringify(from)}];`);
      return '';
    },
  );
  const body = source
    .split('\n')
    .map((line) => {
      const annotation = /console\.log\(.*\/\/ → (.*)$/.exec(line);
      if (annotation !== null) expected.push(annotation[1]!.trim());
      return line;
    })
    .join('\n');
  const printed: string[] = [];
  // As console.log prints them, so an annotation says what a user sees (`[ true, false ]`, not `true,false`).
  const log = (...values: unknown[]) => printed.push(format(...values));
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>;
  const names = Object.keys(globals);
  const run = new AsyncFunction('__modules', 'console', ...names, `${bindings.join('\n')}\n${body}`);
  await run(modules, { log }, ...names.map((name) => globals[name]));
  return { printed, expected };
}
