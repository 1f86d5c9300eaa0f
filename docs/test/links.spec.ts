import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * A package README is its page on the registry, where a relative link (`../window`, `../../docs/FORMAT.md`) leads
 * nowhere: links there are absolute (the package's registry page, a shipped file on unpkg) or anchors in the page.
 */
const root = new URL('../../packages/', import.meta.url);
const packages = readdirSync(root).filter(
  (dir) => JSON.parse(readFileSync(new URL(`${dir}/package.json`, root), 'utf8')).private !== true,
);

describe('package READMEs link only to what works on the registry page', () => {
  it.each(packages)('@bloomkit/%s', (dir) => {
    const readme = readFileSync(new URL(`${dir}/README.md`, root), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((found) => found[1]!);
    expect(targets.filter((target) => !/^(https:\/\/|#)/.test(target))).toEqual([]);
  });
});
