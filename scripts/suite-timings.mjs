#!/usr/bin/env node
// Records one run of the test suite in docs/results/suite-timings.json: how long it took, on what load, how many tests
// passed, and its slowest tests beside their time limits (vitest.config.ts's HANG_MS, or a test's own `timeout`).
// The docs quote these runs, and docs/test/suite-timings.spec.ts holds each recorded test to a third of its limit.
//
//   node scripts/suite-timings.mjs RUN REPORT SECONDS [LOADAVG_LOG] [--describe TEXT]
//
// RUN names the entry ('idle', 'loaded'); REPORT is the run's .vitest-report.json (vitest's JSON reporter); SECONDS
// the README test line's wall time; LOADAVG_LOG, for a loaded run, lines of /proc/loadavg taken every 30 s.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = `${root}docs/results/suite-timings.json`;
const [run, reportPath, seconds, loadLog] = process.argv
  .slice(2)
  .filter((_, i, all) => all[i - 1] !== '--describe');
const describeAt = process.argv.indexOf('--describe');
const description = describeAt > 0 ? process.argv[describeAt + 1] : undefined;
if (run === undefined || reportPath === undefined || seconds === undefined) {
  process.stderr.write(
    'usage: node scripts/suite-timings.mjs RUN REPORT SECONDS [LOADAVG_LOG] [--describe TEXT]\n',
  );
  process.exit(2);
}

/** vitest.config.ts's limit for every test and hook, in ms. */
function defaultLimit() {
  const config = readFileSync(`${root}vitest.config.ts`, 'utf8');
  const match = /const HANG_MS = ([\d_]+);/.exec(config);
  if (match === null) throw new Error('suite-timings: HANG_MS not found in vitest.config.ts');
  return Number(match[1].replaceAll('_', ''));
}

/** A test's own limit: a `timeout: N` in the 200 characters after its title in its file; else the default. */
function limitOf(source, title, fallback) {
  const at = source.indexOf(`'${title}'`);
  if (at < 0) return fallback;
  const match = /timeout: ([\d_]+)/.exec(source.slice(at, at + title.length + 200));
  return match === null ? fallback : Number(match[1].replaceAll('_', ''));
}

const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const fallback = defaultLimit();
const tests = [];
for (const file of report.testResults) {
  // The report names files where the run was (a fresh clone): the path from the repository's root is kept.
  const path = file.name.slice(file.name.search(/\/(packages|apps|docs)\//) + 1);
  let source = '';
  try {
    source = readFileSync(`${root}${path}`, 'utf8');
  } catch {}
  for (const test of file.assertionResults) {
    tests.push({
      file: path,
      test: test.fullName,
      seconds: Math.round(test.duration / 100) / 10,
      limitSeconds: limitOf(source, test.title, fallback) / 1000,
    });
  }
}
const byTime = [...tests].sort((a, b) => b.seconds - a.seconds);
const byShare = [...tests].sort((a, b) => b.seconds / b.limitSeconds - a.seconds / a.limitSeconds);
const loads =
  loadLog === undefined
    ? []
    : readFileSync(loadLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => Number(l.split(' ')[0]));
loads.sort((a, b) => a - b);
const entry = {
  measured: new Date(report.startTime).toISOString().slice(0, 10),
  machine: '2 cores, Node 20',
  ...(description === undefined ? {} : { beside: description }),
  ...(loads.length === 0
    ? {}
    : { loadAverage1m: { min: loads[0], median: loads[loads.length >> 1], max: loads[loads.length - 1] } }),
  seconds: Number(seconds),
  passed: report.numPassedTests,
  failed: report.numFailedTests,
  slowest: byTime.slice(0, 10),
  // The ten that took the largest share of their limits (a short limit makes a test of a few seconds one of them).
  closestToLimit: byShare.slice(0, 10),
};
let recorded = {};
try {
  recorded = JSON.parse(readFileSync(out, 'utf8'));
} catch {}
recorded[run] = entry;
writeFileSync(out, `${JSON.stringify(recorded, null, 2)}\n`);
process.stderr.write(`suite-timings: ${relative(root, out)}: ${run}, ${tests.length} tests, ${seconds} s\n`);
