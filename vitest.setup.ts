import fc from 'fast-check';
import { afterAll, afterEach, expect } from 'vitest';

// Every test ends by letting the event loop run once. Consecutive synchronous tests otherwise keep a worker from
// answering the runner's messages (they run back to back on microtasks), and vitest fails a run whose worker is
// silent for 60 s ("Timeout calling onTaskUpdate") although every test passed. A test that itself works for long
// yields between its steps (testkit's yieldToRunner).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

// `pnpm test:quick` (BLOOMKIT_QUICK=1) runs each property on 25 random inputs instead of fast-check's 100; a
// property that sets its own numRuns keeps it. `pnpm test` and CI run the full depth.
if (process.env.BLOOMKIT_QUICK === '1') fc.configureGlobal({ numRuns: 25 });

// BLOOMKIT_STALL_LOG=FILE: each test file appends one line of JSON to FILE, the longest its worker's event loop was
// held (`stallMs`: a test or hook that ran that long without yielding, so the worker could not answer the runner)
// and the file's path. Off by default; CONTRIBUTING says how to read it.
const stallLog = process.env.BLOOMKIT_STALL_LOG;
if (stallLog !== undefined && stallLog !== '') {
  const { appendFileSync } = await import('node:fs');
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  afterAll(() => {
    delay.disable();
    const file = expect.getState().testPath ?? '?';
    appendFileSync(stallLog, `${JSON.stringify({ stallMs: Math.round(delay.max / 1e6), file })}\n`);
  });
}
