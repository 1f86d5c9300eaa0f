import { chooseShape, standardLayout } from '@bloomkit/core';
import { chainAt, DEFAULT_GROWTH, DEFAULT_TIGHTENING } from '@bloomkit/scalable';
import { COLOURS } from './colours.js';
import { bytes, compact, grouped, rate } from './numbers.js';
import type { Point } from './plot.js';
import { row } from './rows.js';
import type { Sized, SizeInput } from './size.js';

/** Scalable: the chain after `keys` adds against one ideal standard filter sized for them. */
export function sizeChain(input: SizeInput): Sized {
  if (input.capacity === undefined || input.fpr === undefined) {
    throw new RangeError("scalable: give n0 (the first sub-filter's keys) and p (the whole chain's rate)");
  }
  const initialCapacity = input.capacity;
  const fpr = input.fpr;
  const schedule = {
    initialCapacity,
    fpr,
    growth: input.growth ?? DEFAULT_GROWTH,
    tightening: input.tightening ?? DEFAULT_TIGHTENING,
  };
  const keys = input.keys ?? 1000 * initialCapacity;
  const chain = chainAt(schedule, keys);
  const held: number[] = [];
  const bitsHeld: number[] = [];
  for (const shape of chain) {
    held.push((held.at(-1) ?? 0) + shape.capacity);
    bitsHeld.push((bitsHeld.at(-1) ?? 0) + shape.bits);
  }
  const bitsAt = (n: number) => bitsHeld[held.findIndex((c) => c >= n)]!;
  const ideal = (n: number) => chooseShape(n, fpr, standardLayout).bits;
  const total = bitsHeld.at(-1)!;
  const newest = chain.at(-1)!;
  const rows = [
    row('subFilters', 'sub-filters after the keys', chain.length),
    row('bits', 'm (bits held)', total, grouped(total)),
    row('bytes', 'memory', Math.ceil(total / 8), bytes(Math.ceil(total / 8))),
    row('idealBits', 'one standard filter for the keys', ideal(keys), grouped(ideal(keys))),
    row('ratio', 'held / ideal', total / ideal(keys), `${(total / ideal(keys)).toFixed(2)}×`),
    row('capacity', 'keys before the next growth', held.at(-1)!, grouped(held.at(-1)!)),
    row('newestHashes', 'newest sub-filter: k', newest.hashes),
    row('newestFpr', 'newest sub-filter: p', newest.fpr, rate(newest.fpr)),
    row('lookups', 'sub-filters a new key looks in', chain.length),
  ];
  const grid = new Set<number>();
  const from = Math.max(1, Math.min(initialCapacity, keys));
  for (let i = 0; i <= 120; i++) grid.add(Math.round(from * (keys / from) ** (i / 120)));
  for (const c of held) if (c + 1 <= keys) grid.add(c + 1);
  const xs = [...grid].filter((n) => n >= 1 && n <= keys).sort((a, b) => a - b);
  // A step function: just before each growth the chain still holds the older sub-filters only.
  const chainPoints: Point[] = [];
  for (const n of xs) {
    const before = chainPoints.at(-1);
    if (before !== undefined && bitsAt(n) !== before[1]) chainPoints.push([n - 1, before[1]]);
    chainPoints.push([n, bitsAt(n)]);
  }
  return {
    rows,
    plot: {
      title: `scalable: memory as it grows (g = ${schedule.growth}, r = ${schedule.tightening})`,
      x: { label: 'keys added', log: true, format: compact },
      y: { label: 'bits', log: true, format: compact },
      series: [
        { name: 'scalable chain', points: chainPoints, style: 'line', colour: COLOURS.formula },
        {
          name: 'one standard filter',
          points: xs.map((n) => [n, ideal(n)] as Point),
          style: 'line',
          colour: COLOURS.ideal,
        },
      ],
    },
  };
}
