import type { BenchKey } from './contenders.js';

/** Runs `op` over `keys` in order until done or `budgetMs` has passed (checked every 1024 calls). */
export function timed(
  keys: readonly BenchKey[],
  budgetMs: number,
  op: (key: BenchKey) => unknown,
): { done: number; ms: number; hits: number } {
  let hits = 0;
  let done = 0;
  const start = performance.now();
  let ms = 0;
  while (done < keys.length) {
    const end = Math.min(keys.length, done + 1024);
    for (let i = done; i < end; i++) if (op(keys[i]!) === true) hits++;
    done = end;
    ms = performance.now() - start;
    if (ms > budgetMs) break;
  }
  return { done, ms, hits };
}

/** Repeats `op` until it has run at least `minMs` (and at least once); returns the mean time per run. */
export function meanMs(op: () => unknown, minMs = 200): number {
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    op();
    runs++;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return elapsed / runs;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
