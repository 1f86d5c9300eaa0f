import { type BenchKey, type Contender, contenderById, type Instance, prepareKeys } from './contenders.js';
import type { Job, Measurement } from './job.js';
import { makeKeys } from './keys.js';
import { meanMs, timed } from './timing.js';

/**
 * The child process: one contender, one workload. Keys are generated before any timing; a small warm-up filter
 * lets the JIT compile the contender's code first. Prints one JSON Measurement on stdout.
 */
const gc = (globalThis as { gc?: () => void }).gc;

function usedBytes(): number {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/**
 * A full collection, so that a timed window pays for the garbage of the calls it times and not for the bench's
 * own. Called after the keys are made, after a window's batches are prepared, and once the keys are let go before
 * serialize, each time before untimed calls: the collection's sweeping, which runs on after it, would slow a window
 * started right away (measured: a single-key `has` timed right after one ran at 6.1–6.5 M/s against 8.4–8.6).
 * Traced with --trace-gc in a replay of this worker, without it:
 * - at 10^6 keys, the 16 MB of 4,096-key batches prepared before a batch window were young, and the window's first
 *   scavenges copied and promoted them: 6 of 4–6 ms inside blocked `hasMany`'s 140 ms;
 * - at 10^7 keys, making the keys left 2.2 GB of garbage beside 1.4 GB of live key strings, and each scavenge in
 *   that heap took 11–13 ms (blocked `hasMany` 6.0–9.1 M/s; 12.0–13.3 with the collection).
 * Every contender's windows get the same.
 */
function settle(): void {
  gc?.();
}

/** Untimed calls of serialize and deserialize before they are timed (see measure). */
const WARM_MS = 300;

export async function measure(job: Job): Promise<Measurement> {
  const contender = contenderById(job.contender);
  const build = await contender.load();
  let present = prepareKeys(contender, makeKeys(job.keyType, job.n, 'present'));
  let absent = prepareKeys(contender, makeKeys(job.keyType, job.absentKeys, 'absent'));

  // Heap growth is read for the exact Set only (see below); forcing full GCs for the others would be wasted time.
  const measureHeap = contender.measureHeap === true && gc !== undefined;
  // The measured instance is made now, before the collection and the warm-up (making it is never timed), except
  // for the Set, whose heap growth counts from just before it is made. A bloomkit filter from 256 KiB of bits takes
  // a place in a kernel memory, which V8 counts as external memory from the moment it is made, and a large one
  // provokes a full collection. With the kernel memory made right before the fill (a first arena of 256 MiB, as
  // they were before arenas started at 16 MiB), that collection fell on the slice made for the hit window and its
  // sweeping ran on inside the window (--trace-gc: a 41 ms mark-compact right before every hit window; single-key
  // has hit 9.86 M/s, median of 5 fresh processes, against 10.34 with the kernel memory off).
  const early = measureHeap ? undefined : build(job.n, job.fpr);

  // The keys' making left its garbage (at 10^7, GBs): collected now, and swept during the warm-up.
  settle();
  warmUp(contender, build, job, present, absent);

  const before = measureHeap ? usedBytes() : 0;
  const instance = early ?? build(job.n, job.fpr);
  const fill = timed(present, job.fillBudgetMs, (k) => instance.add(k));
  // A fixed set is built from the keys gathered by the fill: its build is part of the fill's time.
  const buildStart = performance.now();
  instance.seal?.();
  fill.ms += performance.now() - buildStart;
  const memory = measureHeap ? usedBytes() - before : 0;
  // A build's temporary tables (a fixed set's, about 24 bytes a key) are garbage now: collected before the probes.
  if (instance.seal !== undefined) settle();
  const added = fill.done;
  const capped = added < job.n;

  const hits = timed(present.slice(0, added), job.probeBudgetMs, (k) => instance.has(k));
  const misses = timed(absent, job.probeBudgetMs, (k) => instance.has(k));
  const { batchHasOps, batchAddOps } = batchRates(instance, build, job, present, absent);
  const { deleteOps, batchDeleteOps } = deleteRates(instance, build, job, present.slice(0, added));
  const absentProbed = misses.done;
  // The keys are done with: let them go before timing serialize, whose allocations would otherwise make every
  // major GC mark millions of live key strings (that measured the GC, at a quarter of the real speed).
  present = [];
  absent = [];
  settle();

  const { serializedBytes, serializeMBps, deserializeMs, deserializeInPlaceMs } = fileRates(
    contender,
    instance,
    capped,
  );

  const nominal = instance.nominalBits();
  const predicted = instance.predictedFpr(added);
  return {
    job,
    added,
    fillCapped: capped,
    addOps: (fill.done / fill.ms) * 1000,
    hasHitOps: (hits.done / hits.ms) * 1000,
    hasMissOps: (misses.done / misses.ms) * 1000,
    batchHasOps,
    batchAddOps,
    deleteOps,
    batchDeleteOps,
    measuredFpr: capped || contender.library === 'hash only' ? null : misses.hits / misses.done,
    absentProbed,
    predictedFpr: capped || predicted === undefined ? null : predicted,
    nominalBitsPerKey: nominal === undefined ? null : nominal / job.n,
    // Heap growth is read only for structures that state no bits (the exact Set's millions of small objects, a
    // BigInt per slot of bloom-filters' XorFilter); a filter's memory is its nominal bits, which heap deltas blur.
    memoryBitsPerKey: capped || !measureHeap ? null : Math.max(0, (memory * 8) / job.n),
    serializedBytes,
    serializeMBps,
    deserializeMs,
    deserializeInPlaceMs,
  };
}

/** How a contender makes an instance for n keys at rate fpr. */
type Build = (n: number, fpr: number) => Instance;

/** Untimed calls of every entry on a separate, smaller instance, so the timed ones run optimized code. */
function warmUp(
  contender: Contender,
  build: Build,
  job: Job,
  present: readonly BenchKey[],
  absent: readonly BenchKey[],
): void {
  const warmCount = Math.min(job.n, 20_000);
  const warm = build(warmCount, job.fpr);
  timed(present.slice(0, warmCount), job.probeBudgetMs, (k) => warm.add(k));
  warm.seal?.();
  timed(present.slice(0, warmCount), job.probeBudgetMs, (k) => warm.has(k));
  timed(absent.slice(0, warmCount), job.probeBudgetMs, (k) => warm.has(k));
  warm.hasMany?.(present.slice(0, 1024));
  // On a fresh filter: the warm one holds its keys already, and a fixed table (cuckoo) refuses keys past its room.
  build(warmCount, job.fpr).addAll?.(present.slice(0, 1024));
  // Serialize and deserialize too, so that the timed calls run optimized code (a 12 MB filter serializes once or
  // twice in the 50 ms window: unwarmed, that measured the interpreter).
  if (warm.serialize !== undefined) {
    for (let i = 0; i < 30; i++) {
      const data = warm.serialize();
      warm.deserialize?.(data, false);
      if (contender.library === 'bloomkit') warm.deserialize?.(data, true);
    }
  }
}

/** The batch entries' rates (null where the contender has none). */
function batchRates(
  instance: Instance,
  build: Build,
  job: Job,
  present: readonly BenchKey[],
  absent: readonly BenchKey[],
): { batchHasOps: number | null; batchAddOps: number | null } {
  // The batch entries are warmed on filters of the measured size, untimed, as the single-key ones are on the small
  // warm-up filter: a bloomkit filter's batch kernel exists only from 256 KiB of bits, so the warm-up filter (20,000
  // keys, 24 KB) never ran it, and a cold first pass timed its first calls in the interpreter (blocked hasMany
  // 9.6 M/s cold against 14–15 steady at 10^6).
  let batchHasOps: number | null = null;
  if (instance.hasMany !== undefined) {
    const batches = queryBatches(present, absent);
    settle();
    batchRate(instance.hasMany, batches, WARM_MS);
    batchHasOps = batchRate(instance.hasMany, batches, job.probeBudgetMs);
  }
  let batchAddOps: number | null = null;
  if (instance.addAll !== undefined) {
    const batches = addBatches(present);
    settle();
    batchRate(build(job.n, job.fpr).addAll!, batches, WARM_MS);
    batchAddOps = batchRate(build(job.n, job.fpr).addAll!, batches, job.fillBudgetMs);
  }
  return { batchHasOps, batchAddOps };
}

/**
 * Deletes of the added keys, each from a fresh instance filled with them (untimed): one key at a time, warmed first
 * on a small instance, then deleteAll in batches of 4,096, warmed first on a filled instance of the measured size (as
 * the other batch entries are: a bloomkit filter's kernel exists only from 256 KiB, so the small one never ran it,
 * and the timed pass began in its first, unoptimized calls). Null where the contender does not delete.
 */
function deleteRates(
  instance: Instance,
  build: Build,
  job: Job,
  added: readonly BenchKey[],
): { deleteOps: number | null; batchDeleteOps: number | null } {
  if (instance.delete === undefined) return { deleteOps: null, batchDeleteOps: null };
  const filled = () => {
    const fresh = build(job.n, job.fpr);
    if (fresh.addAll !== undefined) for (const batch of addBatches(added)) fresh.addAll(batch);
    else for (const key of added) fresh.add(key);
    return fresh;
  };
  const warmKeys = added.slice(0, 20_000);
  const warm = build(warmKeys.length, job.fpr);
  for (const key of warmKeys) warm.add(key);
  timed(warmKeys, WARM_MS, (k) => warm.delete!(k));
  const single = filled();
  settle();
  const deletes = timed(added, job.probeBudgetMs, (k) => single.delete!(k));
  const deleteOps = (deletes.done / deletes.ms) * 1000;
  if (instance.deleteAll === undefined) return { deleteOps, batchDeleteOps: null };
  const batches = addBatches(added);
  const warmBatch = filled();
  settle();
  batchRate(warmBatch.deleteAll!, batches, WARM_MS);
  const batched = filled();
  settle();
  return { deleteOps, batchDeleteOps: batchRate(batched.deleteAll!, batches, job.probeBudgetMs) };
}

/** Serialize and deserialize, timed after untimed calls (null where the contender has none, or the fill capped). */
function fileRates(
  contender: Contender,
  instance: Instance,
  capped: boolean,
): {
  serializedBytes: number | null;
  serializeMBps: number | null;
  deserializeMs: number | null;
  deserializeInPlaceMs: number | null;
} {
  let serializedBytes: number | null = null;
  let serializeMBps: number | null = null;
  let deserializeMs: number | null = null;
  let deserializeInPlaceMs: number | null = null;
  if (instance.serialize !== undefined && !capped) {
    const serialize = instance.serialize;
    const data = serialize();
    serializedBytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    // Serialize (and deserialize with a copy) allocate a new array per call, and the first calls of a process pay
    // for fresh memory: the allocator maps new pages and faults them in until V8 has collected a few of the old
    // arrays and the allocator reuses their blocks. For a 1.2 MB filter that measured 2–4 ms a call over the first
    // ~60 calls, then 1.1 ms (a probe replaying this worker). A 50 ms window right after the fill timed mostly that
    // (0.25–0.38 GB/s): the rates here are the steady ones, after untimed calls, as every rate of this bench is.
    meanMs(serialize, WARM_MS);
    serializeMBps = serializedBytes / 1e6 / (meanMs(serialize, 200) / 1000);
    if (instance.deserialize !== undefined) {
      const deserialize = instance.deserialize;
      meanMs(() => deserialize(data, false), WARM_MS);
      deserializeMs = meanMs(() => deserialize(data, false), 50);
      if (contender.library === 'bloomkit') deserializeInPlaceMs = meanMs(() => deserialize(data, true), 50);
    }
  }
  return { serializedBytes, serializeMBps, deserializeMs, deserializeInPlaceMs };
}

/** The present keys in batches of 4,096, for addAll. */
function addBatches(present: readonly BenchKey[]): BenchKey[][] {
  const batches: BenchKey[][] = [];
  for (let start = 0; start < present.length; start += 4096) batches.push(present.slice(start, start + 4096));
  return batches;
}

/** Batches of 4,096 keys for hasMany, each half present, half absent keys. */
function queryBatches(present: readonly BenchKey[], absent: readonly BenchKey[]): BenchKey[][] {
  const batches: BenchKey[][] = [];
  const half = 2048;
  const total = Math.min(present.length, absent.length);
  for (let start = 0; start < total; start += half) {
    batches.push([...present.slice(start, start + half), ...absent.slice(start, start + half)]);
  }
  return batches;
}

/**
 * Keys a second of `call` over prepared batches, in order, for at most `budgetMs`: hasMany over query batches,
 * addAll into an empty instance of the measured size (a bulk load), deleteAll from a filled one.
 */
function batchRate(
  call: (keys: readonly BenchKey[]) => unknown,
  batches: readonly BenchKey[][],
  budgetMs: number,
): number {
  let done = 0;
  const begin = performance.now();
  let ms = 0;
  for (const batch of batches) {
    call(batch);
    done += batch.length;
    ms = performance.now() - begin;
    if (ms > budgetMs) break;
  }
  return (done / ms) * 1000;
}
