import { describe, expect, it } from 'vitest';
import { contendersFor, HEADLINE, jobs, makePlan } from '../src/plan.js';

describe('plan', () => {
  it('quick runs the headline goals only: the kinds and the peer at 10^6, the in-cache case at 10^5', () => {
    const quick = makePlan('quick');
    expect(quick.workloads.map((w) => `${w.keyType}/${w.n}/${w.fpr}`)).toEqual([
      'url/1000000/0.01',
      'url/100000/0.01',
    ]);
    expect(quick.workloads[0]!.contenders).toEqual(HEADLINE);
    expect(contendersFor(quick.workloads[1]!, 0.01).map((c) => c.id)).toEqual([
      'bloomkit-standard',
      'bloomfilter',
      'hash-only',
    ]);
    expect([quick.repetitions, quick.concurrency]).toEqual([5, 1]);
    // Every measurement once per repetition, one at a time: 7 + 3 jobs a repetition.
    expect(jobs(quick).length).toBe(5 * (HEADLINE.length + 3));
  });

  it('full covers URL (flat and cons) and binary keys at 10^5 to 10^7, p = 0.01 and 0.001', () => {
    const full = makePlan('full');
    const names = full.workloads.map((w) => `${w.keyType}/${w.n}/${w.fpr}`);
    expect(names).toContain('url/10000000/0.001');
    expect(names).toContain('binary/100000/0.01');
    expect(names).toContain('url-cons/1000000/0.01');
    // 10^7 keys: only the memory-bound comparison (blocked, standard, the peer, the hash floor).
    for (const w of full.workloads) expect(w.contenders !== undefined).toBe(w.n === 10_000_000);
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
    const plan = makePlan('full', [1000], 3);
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
