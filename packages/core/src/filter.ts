import { InvalidArgumentError } from './errors.js';
import type { FilterJson } from './json.js';
import type { Key } from './key.js';
import { describe } from './key.js';

/**
 * The API every bloomkit filter kind has (standard, partitioned, counting, scalable, blocked, and any kind in the
 * table of `@bloomkit/filters`).
 *
 * Contract: `has` may answer true for a key never added (a false positive, at about the rate the filter was
 * sized for) but never answers false for a key that was added (and, for the counting filter, not deleted since).
 */
export interface BloomFilter {
  /** m: bits (or counters) in the filter. */
  readonly bits: number;
  /** k: positions per key. */
  readonly hashes: number;
  /** The 32-bit hash seed; filters can only be combined when their seeds are equal. */
  readonly seed: number;
  /** Number of `add` calls that returned true (keys that changed the filter). */
  readonly count: number;
  /** The capacity the filter was created for with `create`, else undefined. */
  readonly capacity: number | undefined;
  /** The target false-positive rate the filter was created for with `create`, else undefined. */
  readonly fpr: number | undefined;

  /** Adds `key`; true when it was not in the filter before (at least one position changed). */
  add(key: Key): boolean;
  /** True when `key` may be in the filter; false when it certainly is not. */
  has(key: Key): boolean;
  /** Adds every key; returns how many were new (how many `add` calls would have returned true). */
  addAll(keys: Iterable<Key>): number;
  /** `has` for each key, faster than a loop of `has` calls (all keys are hashed first, then probed). */
  hasMany(keys: readonly Key[]): boolean[];

  /** Fraction of bits (counters) that are set, in [0, 1]. */
  fillRatio(): number;
  /** Estimated number of distinct keys added, from the fill ratio (Swamidass & Baldi 2007). */
  estimatedCount(): number;
  /** The false-positive rate now, from the fill ratio. */
  expectedFpr(): number;

  /** A new filter holding the keys of both (same kind, m, k and seed, else IncompatibleFiltersError). */
  union(other: this): this;
  /** A new filter whose positions are set in both: holds every key present in both sources. */
  intersect(other: this): this;
  /** An independent copy. */
  clone(): this;
  /** Removes every key. */
  clear(): void;
  /** True when both are the same kind with the same m, k, seed and contents. */
  equals(other: this): boolean;
  /**
   * The filter in bloomkit's binary format (docs/FORMAT.md), in one array. Past one typed array's limit (4 GiB on
   * Node 20) this throws an InvalidArgumentError that points to {@link serializeParts}.
   */
  serialize(): Uint8Array;
  /**
   * The same bytes as {@link serialize}, as a list of parts to write one after another: for files of any size.
   * The payload parts are views of the filter's own storage, not copies: write them before the filter next
   * changes. From 256 KiB a filter's storage shares its `ArrayBuffer` with other filters': write each part by its
   * `byteOffset` and `length` (as `fs.writeSync(fd, part)` does), never its whole `buffer`.
   */
  serializeParts(): Uint8Array[];
  /**
   * The JSON form: `{ format: 'bloomkit', version, kind, base64 }`, the file in base64, so `JSON.stringify` stores
   * the filter compactly and the class's `fromJSON` reads it back. Files past ~384 MiB do not fit one string.
   */
  toJSON(): FilterJson;
}

/**
 * One fact a filter states about its own kind's shape, beyond the shared API (a cuckoo filter's bucket size, say),
 * so an inspector (`bloomkit info`, the sizing page) prints it without knowing the kind. A kind that has such facts
 * gives them from a `facts()` method.
 */
export interface FilterFact {
  /** The name for programs (a JSON key, camelCase). */
  readonly key: string;
  /** What a person reads. */
  readonly label: string;
  /** The value. */
  readonly value: number | string | boolean | null;
  /** The value as a person reads it (grouped, with units). */
  readonly text: string;
}

/**
 * A {@link FilterFact}: with `text` when given, else the value as a person reads it (a number grouped in thousands,
 * `1,000,000`; anything else as written).
 */
export function fact(
  key: string,
  label: string,
  value: number | string | boolean | null,
  text?: string,
): FilterFact {
  return {
    key,
    label,
    value,
    text: text ?? (typeof value === 'number' ? value.toLocaleString('en-US') : String(value)),
  };
}

/** The seed used when none is given: filters built alike with default options are compatible. */
export const DEFAULT_SEED = 0;

/** Options shared by every kind's `create` and constructor. */
export interface SeedOption {
  /**
   * The hash seed, an integer in [0, 2^32 − 1], or `'random'` to draw one with `crypto.getRandomValues` (against
   * key-flooding: an attacker who cannot read the seed cannot precompute keys that collide). The seed is stored in
   * the serialized form. Default {@link DEFAULT_SEED}.
   */
  readonly seed?: number | 'random';
  /**
   * The most memory, in bytes, the filter's bits or counters may take: a filter that would need more is refused
   * with an InvalidArgumentError that says how many bytes it asked for, before anything is allocated. A guard
   * against a size computed from untrusted input (10^12 keys at 10^-12 would reserve 6.7 TB). An integer in
   * [1, 2^53 − 1]; default {@link DEFAULT_MAX_BYTES} (4 GiB). Not stored in the serialized form.
   */
  readonly maxBytes?: number | undefined;
}

/** The default {@link SeedOption.maxBytes}: 4 GiB, a filter for ~3.5·10^9 keys at 1%. */
export const DEFAULT_MAX_BYTES: number = 2 ** 32;

/**
 * Refuses a store of `bytes` bytes when it exceeds `maxBytes` (default {@link DEFAULT_MAX_BYTES}), naming the
 * request; checked before anything is allocated.
 */
export function checkAllocation(where: string, bytes: number, maxBytes: unknown): void {
  const limit =
    maxBytes === undefined
      ? DEFAULT_MAX_BYTES
      : typeof maxBytes === 'number' && Number.isSafeInteger(maxBytes) && maxBytes >= 1
        ? maxBytes
        : undefined;
  if (limit === undefined) {
    throw new InvalidArgumentError(
      `${where}: maxBytes must be an integer in [1, 2^53 - 1], got ${describe(maxBytes)}`,
    );
  }
  if (bytes > limit) {
    throw new InvalidArgumentError(
      `${where}: the filter needs ${bytes} bytes, more than maxBytes (${limit}); pass a larger maxBytes to allow it`,
    );
  }
}

/** Options for reading a serialized filter. */
export interface DeserializeOptions {
  /**
   * Copy the payload (default true). With false the filter reads and writes the caller's bytes in place: opening
   * the filter block of a table file costs no copy, and the bytes must not change (nor their buffer be detached or
   * transferred) while the filter is used. Adds then change the payload inside the bytes but not their count and
   * checksum: call the filter's `syncBytes()` to make them a valid file again before storing them.
   */
  readonly copy?: boolean;
  /** Verify the CRC-32C (default true). False makes opening O(1) for a caller that checksums its own blocks. */
  readonly verifyChecksum?: boolean;
}

/** The options object of a call: undefined gives `{}`; anything but a plain object is refused. */
export function readOptions<T extends object>(where: string, options: T | undefined, name = 'options'): T {
  if (options === undefined) return {} as T;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(`${where}: ${name} must be an object, got ${describe(options)}`);
  }
  // A getter that throws becomes an InvalidArgumentError naming the option, like any other bad option.
  return new Proxy(options, {
    get(target, key, receiver) {
      try {
        return Reflect.get(target, key, receiver);
      } catch (error) {
        throw new InvalidArgumentError(`${where}: reading ${name}.${String(key)} threw: ${String(error)}`);
      }
    },
  });
}

/** An optional boolean option: undefined gives `fallback`; anything but true or false is refused. */
export function readFlag(where: string, name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new InvalidArgumentError(`${where}: ${name} must be true or false, got ${describe(value)}`);
  }
  return value;
}

/** Checks a {@link DeserializeOptions} object and fills in the defaults (copy and verify). */
export function readDeserializeOptions(
  where: string,
  options: DeserializeOptions | undefined,
): Required<DeserializeOptions> {
  const o = readOptions(where, options);
  return {
    copy: readFlag(where, 'options.copy', o.copy, true),
    verifyChecksum: readFlag(where, 'options.verifyChecksum', o.verifyChecksum, true),
  };
}

/** Validates a seed option and resolves `'random'`. */
export function resolveSeed(where: string, seed: number | 'random' | undefined): number {
  if (seed === undefined) return DEFAULT_SEED;
  if (seed === 'random') return crypto.getRandomValues(new Uint32Array(1))[0]!;
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new InvalidArgumentError(
      `${where}: seed must be an integer in [0, 2^32 - 1] or 'random', got ${describe(seed)}`,
    );
  }
  return seed;
}
