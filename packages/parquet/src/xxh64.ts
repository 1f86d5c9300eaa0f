import { InvalidArgumentError } from '@bloomkit/core';
import { xxh64Hasher } from './xxh64-hasher.js';

const out = new Uint32Array(2);

/**
 * XXH64 with seed 0 of `bytes` (or of a string's UTF-8 bytes), as a bigint: the hash Parquet's split-block filters
 * take of a value's plain bytes, for a caller that hashes values itself (`addHash`, `hasHash`). The filters' own
 * paths never make a bigint: they hash through the WebAssembly kernel, or in JavaScript over 32-bit halves.
 */
export function xxh64(bytes: Uint8Array | string): bigint {
  const hasher = xxh64Hasher();
  if (typeof bytes === 'string') hasher.text(bytes, out);
  else if (bytes instanceof Uint8Array) hasher.bytes(bytes, 0, bytes.length, out);
  else throw new InvalidArgumentError(`xxh64: bytes must be a Uint8Array or a string, got ${typeof bytes}`);
  return (BigInt(out[1]!) << 32n) | BigInt(out[0]!);
}
