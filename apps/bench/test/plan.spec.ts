import { describe, expect, it } from 'vitest';
import { contendersFor, jobs, makePlan } from '../src/plan.js';

describe('plan', () => {
  it('quick covers URL and binary keys at 10^5 and 10^6, p = 0.01 and 0.001; full adds 10^7', () => {
    const quick = makePlan('quick');
    expect(quick.workloads.map((w) => `${w.keyType}/${w.n}/${w.fpr}`)).toEqual([
      'url/100000/0.01',
      'url/100000/0.001',
      'url/1000000/0.01',
      'url/1000000/0.001',
      'binary/100000/0.01',
      'binary/100000/0.001',
      'binary/1000000/0.01',
      'binary/1000000/0.001',
    ]);
    expect(makePlan('full').workloads.some((w) => w.n === 10_000_000)).toBe(true);
    expect(quick.repetitions).toBeGreaterThanOrEqual(3);
  });

  it('gives binary keys only to contenders that take them, and runs p-independent baselines once', () => {
    const ids = (keyType: 'url' | 'binary', fpr: number) =>
      contendersFor({ keyType, n: 10, fpr }, 0.01).map((c) => c.id);
    expect(ids('binary', 0.01)).not.toContain('bloomfilter');
    expect(ids('binary', 0.01)).not.toContain('mnemonist');
    expect(ids('binary', 0.01)).toContain('bloom-filters-standard');
    expect(ids('url', 0.01)).toContain('set');
    expect(ids('url', 0.001)).not.toContain('set');
    expect(ids('url', 0.001)).not.toContain('hash-only');
  });

  it('interleaves contenders and rotates their order between repetitions', () => {
    const plan = makePlan('quick', [1000], 3);
    const all = jobs(plan);
    const firstOfEachRep = [0, 1, 2].map((rep) => all[rep * (all.length / 3)]!.contender);
    expect(new Set(firstOfEachRep).size).toBe(3);
    const perContender = new Map<string, number>();
    for (const job of all)
      perContender.set(
        `${job.contender}/${job.keyType}/${job.fpr}`,
        (perContender.get(`${job.contender}/${job.keyType}/${job.fpr}`) ?? 0) + 1,
      );
    expect([...perContender.values()].every((count) => count === 3)).toBe(true);
  });
});
