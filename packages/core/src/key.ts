import { InvalidArgumentError } from './errors.js';

/**
 * What a filter accepts as a key. A string is hashed as its UTF-8 bytes (as `TextEncoder` encodes it, a lone
 * surrogate becoming U+FFFD), so `"é"` and `new Uint8Array([0xc3, 0xa9])` are the same key.
 */
export type Key = string | Uint8Array;

/** Throws {@link InvalidArgumentError} unless `key` is a string or a Uint8Array (never a silent `String(key)`). */
export function assertKey(key: unknown, where: string): asserts key is Key {
  if (typeof key !== 'string' && !(key instanceof Uint8Array)) {
    throw new InvalidArgumentError(`${where}: key must be a string or a Uint8Array, got ${describe(key)}`);
  }
}

/** A short description of a value for error messages (type, and the value itself when it is small). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  if (typeof value === 'string') return `string "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}
