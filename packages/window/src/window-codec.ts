import { FormatError, MAX_CLOCK_MS } from '@bloomkit/core';
import { getUint64, setUint64 } from '@bloomkit/core/internal';
import {
  keyGenerations,
  MAX_WINDOW_BITS,
  MAX_WINDOW_HASHES,
  SLICE_ALIGN,
  timedSplit,
  type WindowShape,
} from './window-sizing.js';

/**
 * The params block of kind 7, a window (docs/FORMAT.md §3.6), little-endian:
 *
 *   0  u8   k, slices each key sets a bit in            1  u8  flags: bit 0 a time window, others zero
 *   2  u16  l, slices past the k newest                  4  u16 the newest slice, in [0, k + l)
 *   6  u16  zero
 *   8  u64  window W                                     16 u64 generation size g
 *   24 u64  slice bits s (a multiple of 64)              32 u64 adds that returned true
 *   40 f64  target rate p                                48 f64 duration in ms (0: a count window)
 *   56 u64  zero
 *   64 + 16·j, for each slice j in [0, k + l): u64 keys of the generation that began at slice j, f64 when it
 *        began (ms since the epoch; 0 in a count window)
 *
 * The payload is the k + l slices, slice j at bits [j·s, (j + 1)·s), bit i at bit (i & 7) of byte i >>> 3.
 */

export const FIXED_PARAMS_BYTES = 64;

/** The longest time window, in ms: 2^40 (about 34.8 years). */
export const MAX_DURATION_MS: number = 2 ** 40;

/**
 * The earliest start a time window's generation may hold, in ms: −2^49. The oldest (empty) generations of a new
 * window began a period apart before its first reading, so with readings from 0 and durations up to 2^40 ms over
 * at most 287 slices they begin after −2^49; the latest is {@link MAX_CLOCK_MS}.
 */
export const MIN_START_MS: number = -(2 ** 49);
export const PER_SLICE_BYTES = 16;
const TIMED = 1;

/** Everything a window file says besides its bits. */
export interface WindowState {
  readonly hashes: number;
  readonly ageSlices: number;
  readonly sliceBits: number;
  readonly generation: number;
  readonly window: number;
  readonly fpr: number;
  /** 0 for a count window. */
  readonly duration: number;
  readonly newest: number;
  readonly count: number;
  /** Per slice: keys of the generation that began there, and when (ms). */
  readonly keys: Float64Array;
  readonly starts: Float64Array;
}

export function paramsBytes(slices: number): number {
  return FIXED_PARAMS_BYTES + PER_SLICE_BYTES * slices;
}

export function writeWindowParams(state: WindowState, out: Uint8Array): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out.fill(0, 0, FIXED_PARAMS_BYTES);
  view.setUint8(0, state.hashes);
  view.setUint8(1, state.duration > 0 ? TIMED : 0);
  view.setUint16(2, state.ageSlices, true);
  view.setUint16(4, state.newest, true);
  setUint64(view, 8, state.window);
  setUint64(view, 16, state.generation);
  setUint64(view, 24, state.sliceBits);
  setUint64(view, 32, state.count);
  view.setFloat64(40, state.fpr, true);
  view.setFloat64(48, state.duration, true);
  const slices = state.hashes + state.ageSlices;
  for (let j = 0; j < slices; j++) {
    const at = FIXED_PARAMS_BYTES + PER_SLICE_BYTES * j;
    setUint64(view, at, state.keys[j]!);
    view.setFloat64(at + 8, state.starts[j]!, true);
  }
}

/**
 * Reads and checks a params block against the payload's length: every field in its range, the window within what
 * the shape remembers, no generation past g keys (the rate's bound), a count window's start times zero.
 */
export function readWindowParams(view: DataView, payloadLength: number, where: string): WindowState {
  if (view.byteLength < FIXED_PARAMS_BYTES) {
    throw new FormatError(
      `${where}: the window params block is at least ${FIXED_PARAMS_BYTES} bytes, got ${view.byteLength}`,
    );
  }
  const hashes = view.getUint8(0);
  const flags = view.getUint8(1);
  const ageSlices = view.getUint16(2, true);
  const newest = view.getUint16(4, true);
  const timed = (flags & TIMED) !== 0;
  if (
    (flags & ~TIMED) !== 0 ||
    view.getUint16(6, true) !== 0 ||
    view.getUint32(56, true) !== 0 ||
    view.getUint32(60, true) !== 0
  ) {
    throw new FormatError(`${where}: reserved bits of the window params block are set`);
  }
  if (hashes < 1 || hashes > MAX_WINDOW_HASHES) {
    throw new FormatError(`${where}: k must be in [1, ${MAX_WINDOW_HASHES}], got ${hashes}`);
  }
  const minAge = timed ? 3 : 1;
  if (ageSlices < minAge || ageSlices > 255) {
    throw new FormatError(`${where}: l must be in [${minAge}, 255], got ${ageSlices}`);
  }
  const slices = hashes + ageSlices;
  if (newest >= slices)
    throw new FormatError(`${where}: the newest slice ${newest} is not in [0, ${slices})`);
  if (view.byteLength !== paramsBytes(slices)) {
    throw new FormatError(
      `${where}: a window of ${slices} slices has a ${paramsBytes(slices)}-byte params block, got ${view.byteLength}`,
    );
  }
  const window = getUint64(view, 8, where, 'window');
  const generation = getUint64(view, 16, where, 'generation size');
  const sliceBits = getUint64(view, 24, where, 'slice bits');
  const count = getUint64(view, 32, where, 'count');
  const fpr = view.getFloat64(40, true);
  const duration = view.getFloat64(48, true);
  if (sliceBits < SLICE_ALIGN || sliceBits % SLICE_ALIGN !== 0 || sliceBits * slices > MAX_WINDOW_BITS) {
    throw new FormatError(
      `${where}: slice bits must be a multiple of ${SLICE_ALIGN} with k + l slices at most 2^32 bits, got ${sliceBits}`,
    );
  }
  if ((sliceBits * slices) / 8 !== payloadLength) {
    throw new FormatError(
      `${where}: ${slices} slices of ${sliceBits} bits take ${(sliceBits * slices) / 8} bytes, the payload is ${payloadLength}`,
    );
  }
  if (generation < 1) throw new FormatError(`${where}: the generation size must be at least 1`);
  if (window < 1 || window > keyGenerations(ageSlices, timed) * generation) {
    throw new FormatError(
      `${where}: a window of ${window} keys is not in [1, ${keyGenerations(ageSlices, timed) * generation}], what ${ageSlices} generations of ${generation} keys remember`,
    );
  }
  if (!(fpr > 0 && fpr < 1)) throw new FormatError(`${where}: the target rate must be in (0, 1), got ${fpr}`);
  if (
    timed
      ? !(Number.isSafeInteger(duration) && duration >= 1 && duration <= MAX_DURATION_MS)
      : !Object.is(duration, 0)
  ) {
    throw new FormatError(
      timed
        ? `${where}: a time window's duration must be an integer in [1, 2^40] ms, got ${duration}`
        : `${where}: a count window's duration must be 0, got ${duration}`,
    );
  }
  const { keys, starts } = readGenerations(view, slices, newest, generation, timed, where);
  if (timed) checkStartOrder(starts, newest, where);
  return { hashes, ageSlices, sliceBits, generation, window, fpr, duration, newest, count, keys, starts };
}

/**
 * The keys held and start time of each of a params block's `slices` generations, checked: at most g keys (g − 1
 * for the newest, which ends on the add that fills it), and a start that is a time in [-2^49, 2^47] ms for a
 * time window, 0 for a count window.
 */
function readGenerations(
  view: DataView,
  slices: number,
  newest: number,
  generation: number,
  timed: boolean,
  where: string,
): { keys: Float64Array; starts: Float64Array } {
  const keys = new Float64Array(slices);
  const starts = new Float64Array(slices);
  for (let j = 0; j < slices; j++) {
    const at = FIXED_PARAMS_BYTES + PER_SLICE_BYTES * j;
    const held = getUint64(view, at, where, `keys of generation ${j}`);
    const start = view.getFloat64(at + 8, true);
    // The newest generation ends on the add that fills it, so it never holds g keys at rest.
    const most = j === newest ? generation - 1 : generation;
    if (held > most) {
      throw new FormatError(
        `${where}: generation ${j} holds ${held} keys, more than ${j === newest ? 'the newest generation holds at rest, g − 1 =' : 'its size'} ${most}`,
      );
    }
    if (
      timed
        ? !(start >= MIN_START_MS && start <= MAX_CLOCK_MS && !Object.is(start, -0))
        : !Object.is(start, 0)
    ) {
      throw new FormatError(
        `${where}: generation ${j} starts at ${start}, not ${timed ? 'a time in [-2^49, 2^47] ms' : '0'}`,
      );
    }
    keys[j] = held;
    starts[j] = start;
  }
  return { keys, starts };
}

/**
 * A time window's generations began in the order of their ages: the slice of age a + 1 began no later than the
 * slice of age a (each generation begins when the one before it ends). FormatError otherwise.
 */
function checkStartOrder(starts: Float64Array, newest: number, where: string): void {
  const slices = starts.length;
  for (let age = 0; age + 1 < slices; age++) {
    const younger = (newest + age) % slices;
    const older = (newest + age + 1) % slices;
    if (starts[older]! > starts[younger]!) {
      throw new FormatError(
        `${where}: generation ${older} (age ${age + 1}) starts at ${starts[older]}, after the younger generation ${younger} (${starts[younger]})`,
      );
    }
  }
}

/** The clock's period of a time window: duration / ⌈(l + 1)/2⌉ ms ({@link timedSplit}). */
export function periodOf(duration: number, ageSlices: number): number {
  return duration > 0 ? duration / timedSplit(ageSlices).perDuration : 0;
}

/** The state of a new, empty ring of `shape`; a time window's older (empty) generations began a period apart before `now`. */
export function freshState(
  shape: WindowShape,
  window: number,
  fpr: number,
  duration: number,
  now: number,
): WindowState {
  const slices = shape.hashes + shape.ageSlices;
  const starts = new Float64Array(slices);
  if (duration > 0) {
    // The older generations (empty) began a period apart before now, so `reach` is defined from the start.
    const period = periodOf(duration, shape.ageSlices);
    for (let i = 0; i < slices; i++) starts[i] = now - i * period;
  }
  return { ...shape, window, fpr, duration, newest: 0, count: 0, keys: new Float64Array(slices), starts };
}
