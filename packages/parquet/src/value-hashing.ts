import { InvalidArgumentError } from '@bloomkit/core';
import {
  checkByteValue,
  describeValue,
  isByteType,
  type ParquetValue,
  type PhysicalType,
  writeFixedValue,
} from './physical-type.js';
import { xxh64Hasher } from './xxh64-hasher.js';

/**
 * A value's XXH64 as Parquet takes it (the hash of its plain bytes, seed 0): one value, or a batch through the
 * WebAssembly kernel's window (xxh64-hasher.ts, which follows core's switch between WebAssembly and JavaScript on
 * each call). Hashes are written as (low 32 bits, high 32 bits) pairs.
 */

const fixed = new Uint8Array(8);
const fixedView = new DataView(fixed.buffer);

/** Writes the hash of `value` (of a `type` column) to `out[at]` (low half) and `out[at + 1]` (high half). */
export function hashValue(where: string, type: PhysicalType, value: unknown, out: Uint32Array, at = 0): void {
  const hasher = xxh64Hasher();
  if (isByteType(type)) {
    if (typeof value === 'string') hasher.text(value, out, at);
    else if (value instanceof Uint8Array) hasher.bytes(value, 0, value.length, out, at);
    else checkByteValue(where, type, value);
    return;
  }
  const length = writeFixedValue(where, type, value, fixedView, 0);
  hasher.bytes(fixed, 0, length, out, at);
}

/** Throws an InvalidArgumentError unless `value` is a value of a `type` column (INT96 takes none). */
export function checkValue(where: string, type: PhysicalType, value: unknown): void {
  if (isByteType(type)) checkByteValue(where, type, value);
  else writeFixedValue(where, type, value, fixedView, 0);
}

/**
 * The values of `list`, checked against the column's type before anything is hashed when `check` (so a batch of
 * adds with a bad value changes nothing; a lookup, which changes nothing, leaves the check to the hashing); a
 * string (one value) or a non-iterable is refused.
 */
export function valueList(
  where: string,
  type: PhysicalType,
  values: unknown,
  check = true,
): readonly ParquetValue[] {
  if (
    typeof values === 'string' ||
    values == null ||
    typeof (values as Iterable<unknown>)[Symbol.iterator] !== 'function'
  ) {
    throw new InvalidArgumentError(
      `${where}: values must be an iterable of values${typeof values === 'string' ? ', got a string (pass [value] for one value)' : `, got ${describeValue(values)}`}`,
    );
  }
  // An array is checked where it lies (nothing runs between the check and the use); any other iterable is read once.
  const list: readonly unknown[] = Array.isArray(values) ? values : Array.from(values as Iterable<unknown>);
  for (let i = 0; check && i < list.length; i++) {
    checkValue(`${where}: values[${i}]`, type, list[i]);
  }
  return list as readonly ParquetValue[];
}

const encoder = new TextEncoder();

/** Where the last {@link hashBatch} left its hashes: `out`, or the kernel's own array (read before the next batch). */
export const hashed: { hashes: Uint32Array } = { hashes: new Uint32Array(0) };

/**
 * Hashes values of a checked `list` from `start`, as many as one kernel run takes (up to 1024, and the window's
 * 192 KiB); returns how many (at least one), value j's pair at [2j, 2j + 2) of `hashed.hashes` (the kernel's array,
 * or `out`). Without the kernel, or for a value longer than the window, one value is hashed alone into `out`. A value
 * of another type is an InvalidArgumentError from `where`.
 */
export function hashBatch(
  where: string,
  type: PhysicalType,
  list: readonly ParquetValue[],
  start: number,
  out: Uint32Array,
): number {
  hashed.hashes = out;
  const batch = xxh64Hasher().batch;
  if (batch === undefined) {
    hashValue(where, type, list[start], out, 0);
    return 1;
  }
  const { window, starts, ends } = batch;
  const last = Math.min(list.length, start + batch.maxValues);
  let at = 0;
  let j = start;
  if (isByteType(type)) {
    // Strings one after another, joined and written with one encodeInto (exact when they are ASCII: each is then
    // as many bytes as characters); bytes copied in.
    let joined = '';
    let joinedAt = 0;
    let ascii = true;
    for (; j < last; j++) {
      const value = list[j]!;
      if (typeof value !== 'string') checkByteValue(where, type, value);
      const worst = typeof value === 'string' ? value.length * 3 : (value as Uint8Array).length;
      if (at + worst > window.length) break;
      if (typeof value === 'string') {
        if (joined === '') joinedAt = at;
        joined += value;
        starts[j - start] = at;
        at += value.length;
      } else {
        if (joined !== '') ascii &&= writeAscii(joined, joinedAt, window);
        joined = '';
        window.set(value as Uint8Array, at);
        starts[j - start] = at;
        at += (value as Uint8Array).length;
      }
      ends[j - start] = at;
    }
    if (joined !== '') ascii &&= writeAscii(joined, joinedAt, window);
    if (!ascii) return hashOneByOne(where, type, list, start, j, out);
  } else {
    for (; j < last && at + 8 <= window.length; j++) {
      starts[j - start] = at;
      at += writeFixedValue(where, type, list[j], batch.view, at);
      ends[j - start] = at;
    }
  }
  if (j === start) {
    hashValue(where, type, list[start], out, 0);
    return 1;
  }
  batch.run(j - start);
  hashed.hashes = batch.hashes;
  return j - start;
}

/** Writes `joined` at `at`; false unless it was all ASCII (one byte a character, all of it written). */
function writeAscii(joined: string, at: number, window: Uint8Array): boolean {
  const { read, written } = encoder.encodeInto(joined, window.subarray(at));
  return read === joined.length && written === joined.length;
}

/** A batch with non-ASCII text: each value hashed alone (the window's offsets were for one byte a character). */
function hashOneByOne(
  where: string,
  type: PhysicalType,
  list: readonly ParquetValue[],
  start: number,
  end: number,
  out: Uint32Array,
): number {
  for (let j = start; j < end; j++) hashValue(where, type, list[j], out, 2 * (j - start));
  return end - start;
}
