import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/** The repository's own pages: a relative link must name a file or folder that is there (anchors aside). */
const repo = new URL('../../', import.meta.url);
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(new URL('docs/', repo))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
  ...readdirSync(new URL('apps/', repo)).map((app) => `apps/${app}/README.md`),
];

describe("the repository's pages link to what is there", () => {
  it.each(pages)('%s', (page) => {
    const text = readFileSync(new URL(page, repo), 'utf8');
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((found) => found[1]!.replace(/#.*$/, ''))
      .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
      .filter((target) => !existsSync(new URL(target, new URL(page, repo))));
    expect(broken).toEqual([]);
  });
});
