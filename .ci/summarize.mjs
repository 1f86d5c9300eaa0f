// Prints the test runner's counts from vitest's JSON report as "N passed, N failed" (last line of CI output).
// Exits 1 when the report is missing, or when any test failed or was skipped.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-report.json';
if (!existsSync(file)) {
  console.error(`no test report at ${file}: the test runner did not finish`);
  console.log('0 passed, 0 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const passed = report.numPassedTests;
const failed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
const skipped = report.numPendingTests + report.numTodoTests;
if (skipped > 0) console.error(`${skipped} tests were skipped or todo: not allowed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && skipped === 0 && passed > 0 ? 0 : 1);
