import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const packages = readdirSync(new URL('./packages', import.meta.url));

/** Tests import sibling packages from source, so `pnpm test` needs no build first (exact matches only). */
const alias = [
  { find: /^@bloomkit\/core\/internal$/, replacement: `${root}packages/core/src/internal.ts` },
  { find: /^@bloomkit\/testkit\/redis$/, replacement: `${root}packages/testkit/src/redis-servers.ts` },
  ...packages.map((name) => ({
    find: new RegExp(`^@bloomkit/${name}$`),
    replacement: `${root}packages/${name}/src/index.ts`,
  })),
];

export default defineConfig({
  test: {
    // Two test files at once on a 2-core machine (vitest's default is cores - 1, one file at a time): most of the
    // long files wait on child processes or Redis servers, which the second core then runs. No test asserts a time.
    maxWorkers: 2,
    // The JSON report is what .ci/run reads to print the runner's own pass/fail counts.
    reporters: ['default', ['json', { outputFile: `${root}.vitest-report.json` }]],
    projects: [
      ...packages.map((name) => ({
        resolve: { alias },
        test: {
          name,
          root: `${root}packages/${name}`,
          include: ['test/**/*.spec.ts'],
          setupFiles: [`${root}vitest.setup.ts`],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      })),
      {
        // docs/FORMAT.md's tables and hex dumps, checked against every package.
        resolve: { alias },
        test: {
          name: 'docs',
          root: `${root}docs`,
          include: ['test/**/*.spec.ts'],
          setupFiles: [`${root}vitest.setup.ts`],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'bench',
          root: `${root}apps/bench`,
          include: ['test/**/*.spec.ts'],
          setupFiles: [`${root}vitest.setup.ts`],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
