import { BinaryFuseFilter } from '@bloomkit/fuse';
import { describe, expect, it } from 'vitest';
import { randomHashes, timeFromHashes } from '../src/fuse-hashes.js';
import { checkGoals } from '../src/goals.js';

describe('the fuse build from 64-bit hashes', () => {
  it('builds from the same random 64-bit keys in every process, and times one build after a warm-up', () => {
    const keys = randomHashes(50_000);
    expect(keys).toEqual(randomHashes(50_000));
    expect(new Set(keys).size).toBe(50_000);
    expect(BinaryFuseFilter.fromHashes(keys).hasHashes(keys.subarray(0, 1000)).every(Boolean)).toBe(true);
    expect(timeFromHashes(50_000)).toBeGreaterThan(0);
  });

  it('reports its goal, met or short, with each build in the range', () => {
    const goal = (ms: number[]) =>
      checkGoals([], [], { n: 1_000_000, ms, keysPerSecond: 1e6 / (ms[1]! / 1000) }).find((g) =>
        g.goal.startsWith('fuse fromHashes'),
      );
    expect(goal([70, 80, 90])).toMatchObject({
      goal: 'fuse fromHashes ≥ 8 M keys/s (n = 1000000 random 64-bit keys)',
      met: true,
    });
    expect(goal([70, 80, 90])!.detail).toMatch(/^12\.50 M keys\/s \(11\.11–14\.29\)/);
    expect(goal([120, 130, 140])!.met).toBe(false);
    expect(checkGoals([], []).some((g) => g.goal.startsWith('fuse fromHashes'))).toBe(false);
  });
});
