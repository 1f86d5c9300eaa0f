import { InvalidArgumentError } from './errors.js';
import { describe, type Key } from './key.js';

/**
 * Argument checks shared by every filter package. Each throws {@link InvalidArgumentError} with a message of the
 * form `<where>: <name> must be <range>, got <value>` and returns the value when it is valid.
 */

/** An integer in [min, max] (both inclusive, both safe integers). */
export function checkInteger(where: string, name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(
      `${where}: ${name} must be an integer in [${formatBound(min)}, ${formatBound(max)}], got ${describe(value)}`,
    );
  }
  return value;
}

/** A finite number strictly between `low` and `high`. */
export function checkOpenInterval(
  where: string,
  name: string,
  value: unknown,
  low: number,
  high: number,
): number {
  if (typeof value !== 'number' || !(value > low && value < high)) {
    throw new InvalidArgumentError(`${where}: ${name} must be in (${low}, ${high}), got ${describe(value)}`);
  }
  return value;
}

/** One of the listed values. */
export function checkOneOf<T extends number | string>(
  where: string,
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (!allowed.includes(value as T)) {
    throw new InvalidArgumentError(
      `${where}: ${name} must be one of ${allowed.join(', ')}, got ${describe(value)}`,
    );
  }
  return value as T;
}

/** Writes large bounds as powers of two (2^48) so messages stay readable. */
function formatBound(n: number): string {
  if (n >= 2 ** 20 && Number.isInteger(Math.log2(n))) return `2^${Math.log2(n)}`;
  if (n >= 2 ** 20 && Number.isInteger(Math.log2(n + 1))) return `2^${Math.log2(n + 1)} - 1`;
  return String(n);
}

/**
 * The keys of an `addAll` or `hasMany` as a checked list: an array is copied (each element read once, so a getter
 * cannot answer differently later), any other iterable is drained first; then every key is checked. A string, a
 * non-iterable, or a key that is neither a string nor a Uint8Array is an InvalidArgumentError naming the index.
 */
export function keyList(where: string, keys: unknown): Key[] {
  if (typeof keys === 'string') {
    throw new InvalidArgumentError(
      `${where}: keys must be an iterable of keys, got a string (pass [key] for one key)`,
    );
  }
  if (keys == null || typeof (keys as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new InvalidArgumentError(
      `${where}: keys must be an iterable of strings or Uint8Arrays, got ${describe(keys)}`,
    );
  }
  const list: unknown[] = Array.isArray(keys)
    ? Array.prototype.slice.call(keys)
    : Array.from(keys as Iterable<unknown>);
  for (let i = 0; i < list.length; i++) {
    const key = list[i];
    if (typeof key !== 'string' && !(key instanceof Uint8Array)) {
      throw new InvalidArgumentError(
        `${where}: keys[${i}] must be a string or a Uint8Array, got ${describe(key)}`,
      );
    }
  }
  return list as Key[];
}

/**
 * Refuses to work on a filter's storage whose buffer was detached (transferred): the caller's bytes of a filter read
 * in place (`copy: false`), or a view of `payloadParts()` whose buffer a caller transferred. Such bytes read as
 * length 0, so a Bloom or fuse filter answered every key absent (a false negative) and a cuckoo filter's reads threw
 * a raw TypeError. A byte length read: callers check where a key is answered absent or new, and once a batch.
 */
export function checkAttached(where: string, bytes: ArrayBufferView): void {
  if (bytes.byteLength === 0) {
    throw new InvalidArgumentError(
      `${where}: the bytes this filter reads were detached (their ArrayBuffer was transferred); read the filter again from a copy`,
    );
  }
}

/**
 * Refuses a hashed key that is not `words` hash words at `hash[at ..]` of an Int32Array: a short array, an offset
 * past its end or a fraction would read missing words as 0, and a filter would add or ask a phantom key
 * (0, 0, 0, 0) that no key hashes to. Cheap enough for every single-key call.
 */
export function checkHashAt(where: string, hash: unknown, at: unknown, words = 4): void {
  if (
    hash instanceof Int32Array &&
    typeof at === 'number' &&
    at >= 0 &&
    (at | 0) === at &&
    at + words <= hash.length
  ) {
    return;
  }
  throw new InvalidArgumentError(
    `${where}: hash must be an Int32Array holding the key's ${words} hash words at hash[at .. at + ${words - 1}] (at an integer in [0, length - ${words}]), got ${describe(hash)}${hash instanceof Int32Array ? ` of ${hash.length}` : ''} with at ${describe(at)}`,
  );
}

/**
 * The arguments of a batch of keys already hashed (`addHashes`, `hasHashes`): `count` an integer in
 * [0, hashes.length / 4], `hashes` an Int32Array, and `answers` a Uint8Array of at least `count` bytes, or
 * undefined where it is optional (`addHashes`).
 */
export function checkHashBatch(
  where: string,
  hashes: unknown,
  count: unknown,
  answers: unknown,
  answersRequired: boolean,
): void {
  if (!(hashes instanceof Int32Array)) {
    throw new InvalidArgumentError(`${where}: hashes must be an Int32Array, got ${describe(hashes)}`);
  }
  checkInteger(where, 'count', count, 0, hashes.length >>> 2);
  if (
    (answers !== undefined || answersRequired) &&
    !(answers instanceof Uint8Array && answers.length >= (count as number))
  ) {
    throw new InvalidArgumentError(
      `${where}: answers must be a Uint8Array of at least count (${count}) bytes, got ${describe(answers)}${answers instanceof Uint8Array ? ` of ${answers.length}` : ''}`,
    );
  }
}

/**
 * The latest time a clock may read and a time window may hold, in ms since the epoch: 2^47 ms, about the year 6429.
 * Below it a binary64 time keeps 1/32 ms of precision, so a generation's end (start + period·(1 − keys/g),
 * docs/FORMAT.md §3.6) is computed to far better than the millisecond a reading stands for.
 */
export const MAX_CLOCK_MS: number = 2 ** 47;

/**
 * A `clock` option (ms since the epoch): undefined gives `Date.now`; anything but a function is refused. Returns the
 * clock with each reading checked: a number of milliseconds in [0, 2^47] ({@link MAX_CLOCK_MS}), or an
 * InvalidArgumentError naming what it returned (NaN, ±Infinity, a time before the epoch or past the horizon are
 * refused as input, never applied).
 */
export function checkClock(where: string, clock: unknown): () => number {
  if (clock === undefined) return Date.now;
  if (typeof clock !== 'function') {
    throw new InvalidArgumentError(
      `${where}: clock must be a function returning milliseconds, got ${typeof clock}`,
    );
  }
  const read = clock as () => number;
  return () => {
    const now = read();
    if (typeof now !== 'number' || !(now >= 0 && now <= MAX_CLOCK_MS)) {
      throw new InvalidArgumentError(
        `${where}: the clock must return milliseconds since the epoch in [0, 2^47], got ${typeof now === 'number' ? now : typeof now}`,
      );
    }
    return now;
  };
}
