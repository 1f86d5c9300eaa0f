import { describe, expect, it } from 'vitest';
import { measure } from '../src/worker.js';

describe('measure (in process)', () => {
  it('fills, probes, measures the rate and round-trips a bloomkit filter', async () => {
    const result = await measure({
      rep: 0,
      contender: 'bloomkit-standard',
      keyType: 'binary',
      n: 20_000,
      fpr: 0.01,
      fillBudgetMs: 60_000,
      probeBudgetMs: 60_000,
      absentKeys: 100_000,
    });
    expect([result.added, result.fillCapped, result.absentProbed]).toEqual([20_000, false, 100_000]);
    // 10^5 probes at p = 0.01: 1000 expected, the 99.9% bound is about 1100.
    expect(result.measuredFpr!).toBeLessThan(0.011);
    expect(result.measuredFpr!).toBeGreaterThan(0.008);
    expect(result.nominalBitsPerKey!).toBeCloseTo(9.59, 1);
    expect(result.serializedBytes).toBe(Math.ceil((result.nominalBitsPerKey! * 20_000) / 8) + 68);
    for (const rate of [
      result.addOps,
      result.hasHitOps,
      result.hasMissOps,
      result.batchHasOps!,
      result.batchAddOps!,
    ])
      expect(rate).toBeGreaterThan(0);
  });

  it('times deletes where a contender deletes: bloomkit cuckoo and counting, bloom-filters CuckooFilter', async () => {
    for (const contender of ['bloomkit-cuckoo', 'bloomkit-counting', 'bloom-filters-cuckoo']) {
      const result = await measure({
        rep: 0,
        contender,
        keyType: 'url',
        n: 20_000,
        fpr: 0.01,
        fillBudgetMs: 60_000,
        probeBudgetMs: 60_000,
        absentKeys: 20_000,
      });
      expect(result.deleteOps!, contender).toBeGreaterThan(0);
      // Batches: the cuckoo filter's deleteAll, the counting filter's deleteMany; bloom-filters has none.
      if (contender.startsWith('bloomkit')) expect(result.batchDeleteOps!, contender).toBeGreaterThan(0);
      else expect(result.batchDeleteOps).toBeNull();
    }
    const plain = await measure({
      rep: 0,
      contender: 'bloomkit-standard',
      keyType: 'url',
      n: 5_000,
      fpr: 0.01,
      fillBudgetMs: 60_000,
      probeBudgetMs: 100,
      absentKeys: 5_000,
    });
    expect([plain.deleteOps, plain.batchDeleteOps]).toEqual([null, null]);
  });

  it('builds a fixed set from the keys the fill gathered: every key present, its rate and bits stated (fuse), or its heap read (XorFilter)', async () => {
    const job = {
      rep: 0,
      keyType: 'url' as const,
      n: 3_000,
      fpr: 0.01,
      fillBudgetMs: 60_000,
      probeBudgetMs: 60_000,
      absentKeys: 20_000,
    };
    const fuse = await measure({ ...job, contender: 'bloomkit-fuse' });
    expect(fuse.added).toBe(3_000);
    expect(fuse.addOps).toBeGreaterThan(0);
    expect(fuse.batchHasOps).toBeGreaterThan(0);
    expect([fuse.batchAddOps, fuse.deleteOps]).toEqual([null, null]);
    expect(fuse.predictedFpr).toBe(2 ** -8);
    expect(fuse.measuredFpr!).toBeLessThan(0.01);
    expect(fuse.nominalBitsPerKey!).toBeGreaterThan(9);
    expect(fuse.nominalBitsPerKey!).toBeLessThan(14);
    expect(fuse.serializedBytes).toBeGreaterThan(3_000);
    const xor = await measure({ ...job, contender: 'bloom-filters-xor' });
    expect(xor.added).toBe(3_000);
    expect(xor.nominalBitsPerKey).toBeNull();
    expect(xor.measuredFpr!).toBeLessThan(0.02);
  }, 120_000);

  it('reports a capped fill instead of a rate it did not measure', async () => {
    const result = await measure({
      rep: 0,
      contender: 'mnemonist',
      keyType: 'url',
      n: 50_000,
      fpr: 0.01,
      fillBudgetMs: -1,
      probeBudgetMs: 1,
      absentKeys: 2048,
    });
    expect(result.fillCapped).toBe(true);
    expect(result.added).toBe(1024);
    expect([result.measuredFpr, result.memoryBitsPerKey]).toEqual([null, null]);
  });
});
