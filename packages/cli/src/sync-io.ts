/** What `Atomics.wait` sleeps on: nothing ever notifies it, so each wait lasts its timeout. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` milliseconds (for synchronous retries; nothing else can run meanwhile). */
export function sleep(ms: number): void {
  Atomics.wait(PAUSE, 0, 0, ms);
}

/**
 * Synchronous reads and writes on descriptors another process may have made non-blocking (a pipe shared with a
 * Node parent, a terminal): such a call fails with EAGAIN instead of waiting. Wait a millisecond and retry.
 */
export function retryWhenBusy(operation: () => number): number {
  for (;;) {
    try {
      return operation();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EAGAIN') throw error;
      sleep(1);
    }
  }
}
