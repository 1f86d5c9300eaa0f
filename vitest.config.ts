import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// Colour codes only on a terminal: a log file or CI gets plain text. (`pnpm test` sets NO_COLOR before vitest
// starts, see scripts/vitest.mjs; this covers a bare `vitest run`, whose workers inherit it: their assertion diffs
// are coloured otherwise.)
if (!process.stdout.isTTY && process.env.FORCE_COLOR === undefined) process.env.NO_COLOR = '1';
const packages = readdirSync(new URL('./packages', import.meta.url));

/** Tests import sibling packages from source, so `pnpm test` needs no build first (exact matches only). */
const alias = [
  { find: /^@bloomkit\/core\/internal$/, replacement: `${root}packages/core/src/internal.ts` },
  { find: /^@bloomkit\/core\/kit$/, replacement: `${root}packages/core/src/kit.ts` },
  { find: /^@bloomkit\/testkit\/redis$/, replacement: `${root}packages/testkit/src/redis-servers.ts` },
  ...packages.map((name) => ({
    find: new RegExp(`^@bloomkit/${name}$`),
    replacement: `${root}packages/${name}/src/index.ts`,
  })),
];

/**
 * `pnpm test:quick` (BLOOMKIT_QUICK=1): the libraries' unit, property and golden tests at a small depth, in about
 * a minute and a half on 2 cores, for the loop of changing code. It leaves out what needs minutes or outside parts,
 * each for the reason given; `pnpm test` (the README's line, and CI) runs everything.
 */
const quick = process.env.BLOOMKIT_QUICK === '1';
/** Files left out of the quick loop. */
const SLOW_FILES: Record<string, readonly string[]> = {
  // 10^6-key rate checks per kind, 10^7-key scenarios, filters of 1 GiB and more, the headless browser.
  blocked: ['test/laws.spec.ts'],
  counting: ['test/laws.spec.ts'],
  cuckoo: ['test/rate.spec.ts', 'test/capacity.spec.ts', 'test/model.spec.ts'],
  partitioned: ['test/laws.spec.ts'],
  standard: ['test/laws.spec.ts', 'test/large-files.spec.ts', 'test/big.spec.ts', 'test/browser.spec.ts'],
  exceptions: ['test/blacklist.spec.ts', 'test/false-positive-rate.spec.ts'],
  window: ['test/stream.spec.ts', 'test/window-kernel.spec.ts'],
  scalable: ['test/scalable-bloom-filter.spec.ts'],
  // The comparisons with DuckDB (a native engine writing and probing real Parquet files).
  parquet: ['test/duckdb.spec.ts', 'test/duckdb-typed.spec.ts', 'test/parquet-file.spec.ts'],
  // The release pack (it installs every package), the test tools' installer.
  docs: ['test/release.spec.ts', 'test/test-tools.spec.ts', 'test/install.spec.ts'],
};
/**
 * Projects of which the quick loop runs only these files: the CLI's other tests run its bin as processes on real
 * files, pipes and signals, and Redis's start redis-server processes and a cluster (end to end, minutes in all).
 */
const QUICK_ONLY: Record<string, readonly string[]> = {
  cli: ['test/kinds.spec.ts', 'test/line-batch.spec.ts'],
  redis: ['test/positions.spec.ts'],
  bench: [],
  // The page runs in headless Chromium.
  sizer: [],
};
/**
 * How long a test or hook may run before it is taken for hung. Generous: the longest tests take about a minute on an
 * idle 2-core machine and several times that beside other CPU-bound work, and a timeout is there to catch a hang, not
 * to time anything (no test asserts a time). Tests that start processes also give each process its own deadline.
 */
const HANG_MS = 600_000;
/**
 * Projects whose test files change a module-wide table (the filters' tests register a private kind, `toy`, which
 * another file of the same worker would then list): in the quick loop too, each of their files gets its own module
 * context.
 */
const ALWAYS_ISOLATED: readonly string[] = ['filters'];
const included = (name: string): string[] => [
  ...((quick ? QUICK_ONLY[name] : undefined) ?? ['test/**/*.spec.ts']),
];
const excluded = (name: string): string[] => [
  ...configDefaults.exclude,
  ...(quick ? (SLOW_FILES[name] ?? []) : []),
];

export default defineConfig({
  test: {
    // Two test files at once on a 2-core machine (vitest's default is cores - 1, one file at a time): most of the
    // long files wait on child processes or Redis servers, which the second core then runs. No test asserts a time.
    maxWorkers: 2,
    // The quick loop runs a worker's test files in one module context (no fresh import of every package per file:
    // a third of its time); `pnpm test` and CI keep every file apart.
    isolate: !quick,
    // The JSON report is what .ci/run reads to print the runner's own pass/fail counts.
    reporters: ['default', ['json', { outputFile: `${root}.vitest-report.json` }]],
    projects: [
      ...packages.map((name) => ({
        resolve: { alias },
        test: {
          name,
          root: `${root}packages/${name}`,
          ...(quick && ALWAYS_ISOLATED.includes(name) ? { isolate: true } : {}),
          include: included(name),
          exclude: excluded(name),
          setupFiles: [`${root}vitest.setup.ts`],
          testTimeout: HANG_MS,
          hookTimeout: HANG_MS,
        },
      })),
      {
        // docs/FORMAT.md's tables and hex dumps, checked against every package.
        resolve: { alias },
        test: {
          name: 'docs',
          root: `${root}docs`,
          include: ['test/**/*.spec.ts'],
          exclude: excluded('docs'),
          setupFiles: [`${root}vitest.setup.ts`],
          testTimeout: HANG_MS,
          hookTimeout: HANG_MS,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'bench',
          root: `${root}apps/bench`,
          include: included('bench'),
          exclude: excluded('bench'),
          setupFiles: [`${root}vitest.setup.ts`],
          testTimeout: HANG_MS,
          hookTimeout: HANG_MS,
        },
      },
      {
        // The sizer page in headless Chromium (apps/sizer), driven with real input events.
        resolve: { alias },
        test: {
          name: 'sizer',
          root: `${root}apps/sizer`,
          include: included('sizer'),
          exclude: excluded('sizer'),
          setupFiles: [`${root}vitest.setup.ts`],
          testTimeout: HANG_MS,
          hookTimeout: HANG_MS,
        },
      },
    ],
  },
});
