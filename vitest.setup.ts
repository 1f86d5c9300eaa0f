import fc from 'fast-check';
import { afterEach } from 'vitest';

// Every test ends by letting the event loop run once. Consecutive synchronous tests otherwise keep a worker from
// answering the runner's messages (they run back to back on microtasks), and vitest fails a run whose worker is
// silent for 60 s ("Timeout calling onTaskUpdate") although every test passed. A test that itself works for long
// yields between its steps (testkit's yieldToRunner).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

// `pnpm test:quick` (BLOOMKIT_QUICK=1) runs each property on 25 random inputs instead of fast-check's 100; a
// property that sets its own numRuns keeps it. `pnpm test` and CI run the full depth.
if (process.env.BLOOMKIT_QUICK === '1') fc.configureGlobal({ numRuns: 25 });
