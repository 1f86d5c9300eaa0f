import { describe, expect, it } from 'vitest';
import { checkGoals, goalsMarkdown } from '../src/goals.js';
import { aggregate, markdownTables } from '../src/report.js';
import { measurement } from './fixtures.js';

describe('aggregate and markdown', () => {
  it('takes medians over repetitions and marks capped fills', () => {
    const rows = aggregate([
      measurement('bloomkit-standard', { addOps: 1e6 }),
      measurement('bloomkit-standard', { addOps: 3e6 }),
      measurement('bloomkit-standard', { addOps: 2e6 }),
      measurement('bloom-filters-scalable', { added: 5000, fillCapped: true, measuredFpr: null }),
    ]);
    const ours = rows.find((r) => r.contender.id === 'bloomkit-standard')!;
    expect([ours.repetitions, ours.addOps]).toEqual([3, 2e6]);
    const capped = rows.find((r) => r.contender.id === 'bloom-filters-scalable')!;
    expect(capped.capped).toBe(true);
    const table = markdownTables(rows);
    expect(table).toContain('### URL keys, n = 10^6, p = 0.01');
    expect(table).toContain('bloom-filters ScalableBloomFilter (fill capped at 5,000 keys)');
  });

  it('reports ratios against the fastest peer', () => {
    const rows = aggregate([
      measurement('bloomkit-standard', { addOps: 3e6 }),
      measurement('bloomfilter', { addOps: 2e6 }),
      measurement('mnemonist', { addOps: 1e6 }),
    ]);
    expect(markdownTables(rows)).toMatch(/\| bloomkit standard \| 3\.00 \|.*\| 1\.50× \|/);
  });
});

describe('goals', () => {
  it('are reported met or short with the numbers, never thrown', () => {
    const runs = [
      measurement('bloomkit-standard', {
        addOps: 3e6,
        hasHitOps: 3e6,
        hasMissOps: 3e6,
        batchHasOps: 5e6,
        serializeMBps: 700,
        deserializeInPlaceMs: 0.001,
      }),
      measurement('bloomkit-standard', { addOps: 2e6, hasHitOps: 2.4e6, hasMissOps: 2.8e6 }, { rep: 1 }),
      measurement('bloomfilter', { addOps: 2e6, hasHitOps: 2e6, hasMissOps: 2e6 }),
      measurement('bloomfilter', { addOps: 2e6, hasHitOps: 2e6, hasMissOps: 2e6 }, { rep: 1 }),
      measurement('bloom-filters-standard', { addOps: 5e4, hasMissOps: 5e4 }),
      measurement('hash-only', { hasHitOps: 4e6 }),
      measurement('bloomkit-partitioned', { measuredFpr: 0.0125 }),
    ];
    const goals = checkGoals(aggregate(runs), runs);
    const byGoal = (text: string) => goals.find((g) => g.goal.includes(text))!;
    // Per-repetition ratios 1.5 and 1.0 (add): the median of two is their mean; the spread is shown.
    expect(byGoal('standard ≥ 1.3× bloomfilter').met).toBe(false);
    expect(byGoal('standard ≥ 1.3× bloomfilter').detail).toContain('add 1.25× (1.00–1.50)');
    expect(byGoal('standard ≥ 1.3× bloomfilter').detail).toContain('has miss 1.45× (1.40–1.50)');
    expect(byGoal('partitioned ≥ 1.3×')).toBeDefined();
    expect(byGoal('≥ 50× bloom-filters').met).toBe(true);
    expect(byGoal('at or below target').met).toBe(false);
    expect(byGoal('at or below target').detail).toContain('bloomkit partitioned');
    expect(byGoal('serialize faster than 1 GB/s').met).toBe(false);
    expect(byGoal('deserialize without copying').met).toBe(true);
    expect(goalsMarkdown(goals)).toContain('**short**');
  });

  it('leave out the bits-per-key goal when no standard filter ran, rather than report -Infinity', () => {
    const runs = [
      measurement('bloomkit-blocked', { addOps: 3e6 }),
      measurement('bloomfilter', { addOps: 2e6 }),
    ];
    const goals = checkGoals(aggregate(runs), runs);
    expect(goals.some((g) => g.goal.includes('bits per key'))).toBe(false);
    expect(goalsMarkdown(goals)).not.toContain('Infinity');
    const withStandard = [...runs, measurement('bloomkit-standard', { nominalBitsPerKey: 9.6 })];
    const bits = checkGoals(aggregate(withStandard), withStandard).find((g) =>
      g.goal.includes('bits per key'),
    );
    expect(bits?.detail).toMatch(/^worst \d+\.\d{3}% above the optimum$/);
  });
});
