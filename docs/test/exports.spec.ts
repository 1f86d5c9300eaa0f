import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every public export of every package is documented twice: a doc comment on its declaration (what an editor shows
 * on hover, and what go-to-definition lands on), and a mention in the package's README (what a reader of the
 * registry page finds). Public members of exported classes and interfaces need a doc comment too, their own or the
 * one they inherit (`@bloomkit/core/kit` is public too, in core's README). `@bloomkit/core/internal` is not for
 * applications: its exports need doc comments, not README mentions.
 */

const root = new URL('../../', import.meta.url).pathname;
const packages = readdirSync(`${root}packages`).filter((dir) => {
  const json = JSON.parse(readFileSync(`${root}packages/${dir}/package.json`, 'utf8'));
  return json.private !== true && json.exports?.['.'] !== undefined;
});
const entries = [
  ...packages.map((dir) => ({
    dir,
    file: `${root}packages/${dir}/src/index.ts`,
    readme: true,
    entry: `@bloomkit/${dir}`,
  })),
  { dir: 'core', file: `${root}packages/core/src/kit.ts`, readme: true, entry: '@bloomkit/core/kit' },
  {
    dir: 'core',
    file: `${root}packages/core/src/internal.ts`,
    readme: false,
    entry: '@bloomkit/core/internal',
  },
];

const program = ts.createProgram(
  entries.map((entry) => entry.file),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
);
const checker = program.getTypeChecker();

function documented(symbol: ts.Symbol): boolean {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() !== '';
}

function resolve(symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** Declared in this repository's sources (not in TypeScript's lib or a dependency). */
function ours(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((declaration) =>
    declaration.getSourceFile().fileName.startsWith(`${root}packages/`),
  );
}

function isPublic(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).every((declaration) => {
    const flags = ts.getCombinedModifierFlags(declaration as ts.Declaration);
    return (
      (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && !symbol.name.startsWith('#')
    );
  });
}

/** The public members of an exported class (instance and static side) or interface that lack a doc comment. */
function undocumentedMembers(symbol: ts.Symbol): string[] {
  const missing: string[] = [];
  const sides: ts.Type[] = [];
  if (symbol.flags & ts.SymbolFlags.Class) {
    sides.push(checker.getDeclaredTypeOfSymbol(symbol));
    sides.push(checker.getTypeOfSymbol(symbol));
  } else if (symbol.flags & ts.SymbolFlags.Interface) {
    sides.push(checker.getDeclaredTypeOfSymbol(symbol));
  }
  for (const side of sides) {
    for (const member of checker.getPropertiesOfType(side)) {
      if (member.name === 'prototype' || !ours(member) || !isPublic(member)) continue;
      if (!documented(member) && !inheritsDoc(symbol, member)) missing.push(`${symbol.name}.${member.name}`);
    }
  }
  return missing;
}

/** A member without its own comment that implements or overrides a documented one of a base class or interface. */
function inheritsDoc(owner: ts.Symbol, member: ts.Symbol): boolean {
  const declaration = owner.declarations?.find(ts.isClassDeclaration);
  if (declaration === undefined) return false;
  for (const clause of declaration.heritageClauses ?? []) {
    for (const base of clause.types) {
      const type = checker.getTypeAtLocation(base.expression);
      const instance = checker.getTypeAtLocation(base);
      for (const side of [type, instance]) {
        const inherited = side.getProperty(member.name);
        if (inherited !== undefined && inherited !== member && documented(inherited)) return true;
      }
    }
  }
  return false;
}

describe('every public export is documented', () => {
  for (const entry of entries) {
    const name = entry.entry;
    it(`${name}: a doc comment on every export and public member${entry.readme ? ', a README mention of every export' : ''}`, () => {
      const source = program.getSourceFile(entry.file)!;
      const module = checker.getSymbolAtLocation(source)!;
      const exports = checker.getExportsOfModule(module);
      expect(exports.length).toBeGreaterThan(0);
      const readme = entry.readme ? readFileSync(`${root}packages/${entry.dir}/README.md`, 'utf8') : '';
      const missing: string[] = [];
      for (const exported of exports) {
        const symbol = resolve(exported);
        if (!documented(symbol)) missing.push(`${exported.name}: no doc comment`);
        if (entry.readme && !new RegExp(`\\b${exported.name}\\b`).test(readme)) {
          missing.push(`${exported.name}: not in the README`);
        }
        for (const member of undocumentedMembers(symbol)) missing.push(`${member}: no doc comment`);
      }
      expect(missing).toEqual([]);
    });
  }
});
