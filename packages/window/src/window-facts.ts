import { type FilterFact, fact } from '@bloomkit/core';
import type { WindowHorizon, WindowReach } from './window-types.js';

/** What {@link windowFacts} reads of a window filter. */
interface WindowFacts {
  readonly window: number;
  readonly duration: number | undefined;
  readonly hashes: number;
  readonly ageSlices: number;
  readonly sliceBits: number;
  readonly generation: number;
  readonly shortened: boolean;
  readonly horizon: WindowHorizon;
  reach(): WindowReach;
}

/**
 * A window filter's shape and what it holds now, as facts: the window, its slices and generation, the keys it
 * holds for certain, and when a key is forgotten; for a time window also its duration, the time from which every
 * key is present, and the horizon on the clock.
 */
export function windowFacts(filter: WindowFacts): FilterFact[] {
  const grouped = (n: number) => n.toLocaleString('en-US');
  const reach = filter.reach();
  const duration = filter.duration;
  const timed = duration !== undefined;
  const horizonMs = filter.horizon.ms ?? null;
  return [
    fact(
      'windowKeys',
      'window',
      filter.window,
      `${grouped(filter.window)} keys${timed ? ` per ${durationText(duration)}` : ''}`,
    ),
    ...(timed ? [fact('durationMs', 'duration', duration, durationText(duration))] : []),
    fact(
      'ageSlices',
      'slices',
      filter.ageSlices,
      `k ${filter.hashes} + l ${filter.ageSlices}, ${grouped(filter.sliceBits)} bits each`,
    ),
    fact('generation', 'keys a generation', filter.generation),
    fact('reachKeys', 'holds now', reach.keys, `the last ${grouped(reach.keys)} keys`),
    ...(timed
      ? [
          fact(
            'reachSince',
            'holds every key since',
            reach.since === undefined ? null : new Date(reach.since).toISOString(),
          ),
          fact(
            'shortened',
            'shortened',
            filter.shortened,
            filter.shortened ? 'yes: more keys than the window came within a duration' : 'no',
          ),
        ]
      : []),
    fact('horizonKeys', 'forgets after', filter.horizon.keys, `${grouped(filter.horizon.keys)} keys`),
    ...(timed
      ? [
          fact(
            'horizonMs',
            'forgets after (clock)',
            horizonMs,
            horizonMs === null ? 'n/a' : durationText(horizonMs),
          ),
        ]
      : []),
  ];
}

/**
 * Milliseconds as a person reads them and `bloomkit --duration` takes them: in the largest of w, d, h, m, s that
 * fits, to two decimals (`1.5h`); else in ms.
 */
function durationText(ms: number): string {
  for (const [unit, size] of [
    ['w', 604_800_000],
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size) return `${Number((ms / size).toFixed(2))}${unit}`;
  }
  return `${ms}ms`;
}
