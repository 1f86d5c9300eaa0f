import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_CLOCK_MS, MAX_HASHES } from '@bloomkit/core';
import { MAX_SUB_FILTERS } from '@bloomkit/scalable';
import { describe, expect, it } from 'vitest';
import { GONE_REPLY } from '../src/errors.js';
import { FAMILIES } from '../src/families/index.js';
import { CLOCK_REPLY } from '../src/window-clock.js';

// The server side's Lua has one source, packages/redis/lua; functions/bloomkit.lua and src/lua/*.ts are built from it
// by scripts/build-lua.mjs. These tests hold the build to the source and the source to its limits.

const redisDir = fileURLToPath(new URL('..', import.meta.url));
const luaDir = fileURLToPath(new URL('../lua/', import.meta.url));

/** Every module of lua/ (and lua/eval/), by its path under lua/. */
function modules(): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of ['', 'eval/']) {
    for (const file of readdirSync(luaDir + dir).filter((f) => f.endsWith('.lua'))) {
      out.set(dir + file, readFileSync(luaDir + dir + file, 'utf8'));
    }
  }
  return out;
}

/** The functions of a module that start at its left margin, with their lengths in lines (header to `end`). */
function topFunctions(text: string): { name: string; lines: number }[] {
  const lines = text.split('\n');
  const out: { name: string; lines: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^(?:local function (\w+)|(\w+) = function|return run\(function)/.exec(lines[i]!);
    if (head === null) continue;
    let j = i + 1;
    while (j < lines.length && !/^end\b/.test(lines[j]!)) j++;
    out.push({ name: head[1] ?? head[2] ?? 'entry', lines: j - i + 1 });
  }
  return out;
}

describe('the Lua of the server side', () => {
  it('functions/bloomkit.lua and src/lua/*.ts are what lua/ builds', () => {
    // Throws (exit status 1, naming the file) when an output is not its modules'.
    execFileSync(process.execPath, ['../../scripts/build-lua.mjs', '--check'], {
      cwd: redisDir,
      stdio: 'pipe',
    });
  });

  it('every module listed in the manifest exists, and every module is listed', () => {
    const manifest = JSON.parse(readFileSync(`${luaDir}manifest.json`, 'utf8')) as {
      library: { modules: string[] };
      scripts: Record<string, string[]>;
    };
    const listed = new Set([...manifest.library.modules, ...Object.values(manifest.scripts).flat()]);
    const present = new Set([...modules().keys()].map((file) => file.replace(/\.lua$/, '')));
    expect([...listed].filter((name) => !present.has(name))).toEqual([]);
    expect([...present].filter((name) => !listed.has(name))).toEqual([]);
  });

  it('each module is at most 450 lines, each function at most 80 (the hash unroll apart)', () => {
    for (const [file, text] of modules()) {
      expect(text.split('\n').length, file).toBeLessThanOrEqual(450);
      for (const { name, lines } of topFunctions(text)) {
        if (file === 'hash.lua' && name === 'murmur') continue;
        expect(lines, `${file}: ${name}`).toBeLessThanOrEqual(80);
      }
    }
  });

  it('each rule is written once: no two modules define the same name', () => {
    const seen = new Map<string, string>();
    for (const [file, text] of modules()) {
      for (const { name } of topFunctions(text)) {
        // An entry of eval/, and the two refusals whose words each door gives (base.lua declares them).
        if (name === 'entry' || name === 'gone' || name === 'badMeta') continue;
        expect(seen.get(name), `${name} in ${file}`).toBeUndefined();
        seen.set(name, file);
      }
    }
    // The rules both doors run, each in its module (the note of the change lists them).
    for (const [rule, file] of [
      ['ringAdvance', 'ring.lua'],
      ['ringAdd', 'ring.lua'],
      ['ringLast', 'ring.lua'],
      ['chainAdd', 'chain.lua'],
      ['grow', 'chain.lua'],
      ['deleteChecked', 'counters.lua'],
      ['recordExceptions', 'exceptions.lua'],
      ['addAnswers', 'bits.lua'],
      ['createMeta', 'create.lua'],
    ]) {
      expect(seen.get(rule!), rule).toBe(file);
    }
  });

  it("the Lua's limits and reply codes are those of the TypeScript", () => {
    const base = readFileSync(`${luaDir}base.lua`, 'utf8');
    const door = readFileSync(`${luaDir}door-eval.lua`, 'utf8');
    // A constant's value: `local NAME = a` or `local NAME = a ^ b`.
    const constant = (name: string) => {
      const found = new RegExp(`^local ${name} = (\\d+)(?: \\^ (\\d+))?`, 'm').exec(base);
      if (found === null) return undefined;
      return found[2] === undefined ? Number(found[1]) : Number(found[1]) ** Number(found[2]);
    };
    expect(constant('MAX_SUB_FILTERS')).toBe(MAX_SUB_FILTERS);
    expect(constant('MAX_HASHES')).toBe(MAX_HASHES);
    expect(constant('MAX_CLOCK_MS')).toBe(MAX_CLOCK_MS);
    expect(door).toContain(`'${GONE_REPLY} the filter no longer exists'`);
    expect(door).toContain(`'${CLOCK_REPLY} NaN'`);
    expect(door).toContain(`'BLOOMKIT_BADMETA '`);
  });

  it("names each storage family's Lua module, and the module exists", () => {
    const present = new Set([...modules().keys()]);
    for (const family of Object.values(FAMILIES)) expect(present, family.name).toContain(`${family.lua}.lua`);
  });
});
