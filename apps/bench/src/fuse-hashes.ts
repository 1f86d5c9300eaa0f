import { fileURLToPath } from 'node:url';
import { BinaryFuseFilter } from '@bloomkit/fuse';
import { runInChild } from './child-report.js';
import { median } from './timing.js';

/**
 * The binary fuse filter's build from 64-bit hashes (`BinaryFuseFilter.fromHashes`, the C reference's input), which
 * issue 60 asks at ≥ 8 M keys a second at 10^6 keys: the main comparison times builds from URL strings (hashing
 * included), so this measures the hashes' build alone. Each repetition runs in a fresh process: n random 64-bit keys
 * (a fixed sequence, the same in every process), one build to compile and warm the path, then the timed build.
 */
export interface FuseHashesResult {
  readonly n: number;
  /** Milliseconds of each repetition's timed build. */
  readonly ms: readonly number[];
  /** The median build's keys a second. */
  readonly keysPerSecond: number;
}

/** The rate issue 60 asks of `fromHashes` at 10^6 keys, in keys a second. */
export const FROM_HASHES_GOAL = 8e6;

const CHILD = fileURLToPath(new URL('./fuse-hashes-child.js', import.meta.url));

/** n random 64-bit keys from a 32-bit xorshift over their words (deterministic: seed 0x9e3779b9). */
export function randomHashes(n: number): BigUint64Array {
  const out = new BigUint64Array(n);
  const words = new Uint32Array(out.buffer);
  let state = 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[i] = state >>> 0;
  }
  return out;
}

/** One repetition, in the calling process: milliseconds of the timed build of n random 64-bit keys. */
export function timeFromHashes(n: number): number {
  const hashes = randomHashes(n);
  BinaryFuseFilter.fromHashes(hashes);
  const started = performance.now();
  const filter = BinaryFuseFilter.fromHashes(hashes);
  const ms = performance.now() - started;
  if (filter.size === 0 && n > 0) throw new Error('fromHashes built an empty filter');
  return ms;
}

/** `reps` repetitions, each in a fresh process, one at a time. */
export async function runFuseFromHashes(
  n: number,
  reps: number,
  progress: (line: string) => void,
): Promise<FuseHashesResult> {
  const ms: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    progress(`fuse fromHashes n=${n} (${rep + 1}/${reps})`);
    ms.push(await runInChild<number>('fuse fromHashes', CHILD, [String(n)], progress));
  }
  return { n, ms, keysPerSecond: n / (median(ms) / 1000) };
}
