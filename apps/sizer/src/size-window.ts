import { WindowBloomFilter, windowPresence, windowRate } from '@bloomkit/window';
import { COLOURS } from './colours.js';
import { bytes, compact, duration, grouped, rate } from './numbers.js';
import type { Point } from './plot.js';
import { row } from './rows.js';
import type { Sized, SizeInput } from './size.js';

/** Window: the shape `create` picks, and how likely a key is still found as it ages. */
export function sizeRing(input: SizeInput): Sized {
  if (input.capacity === undefined || input.fpr === undefined) {
    throw new RangeError('window: give the window (keys it keeps) and p');
  }
  const window = input.capacity;
  const fpr = input.fpr;
  const shape = WindowBloomFilter.shapeOf(window, fpr, { duration: input.duration });
  const { hashes: k, ageSlices: l, sliceBits: s, generation: g, period } = shape;
  const bits = (k + l) * s;
  const timed = input.duration !== undefined;
  const rows = [
    row('hashes', 'k (slices a key sets)', k),
    row('ageSlices', 'l (slices past the k newest)', l),
    row('sliceBits', 's (bits a slice)', s, grouped(s)),
    row('generation', 'g (keys a generation)', g, grouped(g)),
    row('bits', 'm (bits)', bits, grouped(bits)),
    row('bytes', 'memory', bits / 8, bytes(bits / 8)),
    row('bitsPerKey', 'bits per window key', bits / window, (bits / window).toFixed(2)),
    row('fpr', 'p (every generation full)', windowRate(k, l, s, g), rate(windowRate(k, l, s, g))),
    row('horizonKeys', 'forgotten after at most (keys)', (k + l) * g, grouped((k + l) * g)),
    ...(timed
      ? [
          row('period', 'a generation lasts at most', period, duration(period)),
          row('horizonMs', 'forgotten after at most (time)', (k + l) * period, duration((k + l) * period)),
        ]
      : []),
  ];
  // x in keys for a count window; for a time window in the largest unit that leaves the horizon at least 2 of it.
  const [unit, unitName] = timed ? timeUnit((k + l + 2) * period) : [1, ''];
  const stepX = timed ? period / unit : g;
  const points: Point[] = [];
  for (let age = 0; age <= k + l + 1; age++) {
    const presence = windowPresence(k, l, s, g, age);
    points.push([age * stepX, presence], [(age + 1) * stepX, presence]);
  }
  const end = points.at(-1)![0];
  const p = windowRate(k, l, s, g);
  const kept = timed ? input.duration! / unit : window;
  return {
    rows,
    plot: {
      title: `window: chance a key is still found, by its age${timed ? '' : ' in keys'}`,
      x: {
        label: timed ? `time since the key was added (${unitName})` : 'keys added since',
        log: false,
        format: compact,
        min: 0,
        max: end,
      },
      y: { label: 'presence probability', log: false, format: (v) => v.toFixed(1), min: 0, max: 1 },
      series: [
        { name: 'presence', points, style: 'line', colour: COLOURS.formula },
        {
          name: `p = ${rate(p)}`,
          points: [
            [0, p],
            [end, p],
          ],
          style: 'guide',
          colour: COLOURS.guide,
        },
        {
          name: timed ? `duration ${duration(input.duration!)}` : `window ${grouped(window)} keys`,
          points: [
            [kept, 0],
            [kept, 1],
          ],
          style: 'guide',
          colour: COLOURS.ideal,
        },
      ],
    },
  };
}

/** A time unit for an axis reaching `ms`: the largest of days, hours, minutes, seconds it holds at least twice. */
function timeUnit(ms: number): [number, string] {
  for (const [size, name] of [
    [8.64e7, 'days'],
    [3.6e6, 'hours'],
    [6e4, 'minutes'],
    [1e3, 'seconds'],
  ] as const) {
    if (ms >= 2 * size) return [size, name];
  }
  return [1, 'ms'];
}
