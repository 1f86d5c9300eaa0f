import { afterEach } from 'vitest';

// Every test ends by letting the event loop run once. Consecutive synchronous tests otherwise keep a worker from
// answering the runner's messages (they run back to back on microtasks), and vitest fails a run whose worker is
// silent for 60 s ("Timeout calling onTaskUpdate") although every test passed. A test that itself works for long
// yields between its steps (testkit's yieldToRunner).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
