/**
 * Contenders measured side by side in one process, as the guide asks of a speed claim: round-robin over slices of
 * the keys, the first reader rotating per slice, so JIT state, cache warmth and the machine's other load favour
 * none; each reader runs a loop compiled for it alone, so its call site sees one class (as an application's would),
 * not every reader's class at one shared site.
 */

/** Keys in a slice: enough to time (milliseconds), few enough that many slices average the machine out. */
export const SLICE = 65_536;

/** One reader's loop over `keys[start .. end)`; returns a count that keeps its work from being optimised away. */
export type Probe = (keys: readonly unknown[], start: number, end: number) => number;

/**
 * A loop compiled for one reader: `body` runs with `keys`, `start`, `end` and a `hits` counter it may add to, and
 * sees each of `context`'s entries under its name.
 */
export function ownLoop(body: string, context: Record<string, unknown>): Probe {
  const names = Object.keys(context);
  const make = new Function(...names, `return (keys, start, end) => { let hits = 0; ${body} return hits; };`);
  return make(...names.map((name) => context[name])) as Probe;
}

/** Milliseconds each reader spent on `keys`, round-robin over slices, the first reader rotating per slice. */
export function interleaved<Name extends string>(
  keys: readonly unknown[],
  probes: Record<Name, Probe>,
): Record<Name, number> {
  const names = Object.keys(probes) as Name[];
  const ms = Object.fromEntries(names.map((name) => [name, 0])) as Record<Name, number>;
  let sink = 0;
  for (let start = 0, slice = 0; start < keys.length; start += SLICE, slice++) {
    const end = Math.min(keys.length, start + SLICE);
    for (let r = 0; r < names.length; r++) {
      const name = names[(slice + r) % names.length]!;
      const t = performance.now();
      sink += probes[name](keys, start, end);
      ms[name] += performance.now() - t;
    }
  }
  if (sink < 0) throw new Error('unreachable');
  return ms;
}
