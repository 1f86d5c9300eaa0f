import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full collection on demand, so the garbage of the tests before a window is not collected inside it.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * The garbage collections that ran while `work` ran (their start times), after two full collections that clear
 * what came before: any collection in the window is then `work`'s own allocation. For "allocates nothing per query"
 * tests: 10^6 calls that each allocated even a small object would trigger several scavenges.
 */
export async function collectionsDuring(work: () => void): Promise<number[]> {
  collectGarbage();
  collectGarbage();
  const collections: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push(entry.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  const start = performance.now();
  work();
  const end = performance.now();
  // The observer's entries arrive asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return collections.filter((t) => t >= start && t <= end);
}
