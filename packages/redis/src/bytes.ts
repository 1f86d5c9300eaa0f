import type { RedisClient } from './client.js';

/** Redis's largest string: 512 MB, 2^32 bits. */
export const MAX_STRING_BITS: number = 2 ** 32;

/** Bytes moved per command: a filter of hundreds of MB never needs one giant reply or request. */
export const CHUNK_BYTES: number = 4 * 1024 * 1024;

/**
 * The first `length` bytes of a string, read with GETRANGE a chunk at a time. A string shorter than `length`
 * (never written so far) reads as zeros past its end, as Redis's bit commands treat it.
 */
export async function readBytes(client: RedisClient, key: string, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += CHUNK_BYTES) {
    const end = Math.min(length, at + CHUNK_BYTES);
    const chunk = await client.getrangeBuffer(key, at, end - 1);
    out.set(chunk, at);
    if (chunk.length < end - at) break;
  }
  return out;
}

/**
 * Replaces a string with `bytes`, a chunk at a time (SETRANGE), after deleting what was there; then `trailer`
 * (the guard, see guard.ts) after them.
 */
export async function writeBytes(
  client: RedisClient,
  key: string,
  bytes: Uint8Array,
  trailer?: Uint8Array,
): Promise<void> {
  await client.del(key);
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    const chunk = bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES));
    await client.setrange(key, at, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }
  if (trailer !== undefined) await client.setrange(key, bytes.length, Buffer.from(trailer));
}

/**
 * A zeroed string of `length` bytes, then `trailer` (the guard) after them, or one zero byte more without: allocated
 * now, so a full server fails at create, not at the first add.
 */
export async function allocateBytes(
  client: RedisClient,
  key: string,
  length: number,
  trailer?: Uint8Array,
): Promise<void> {
  await client.del(key);
  if (trailer === undefined) await client.setrange(key, length - 1, Buffer.alloc(1));
  else await client.setrange(key, length, Buffer.from(trailer));
}
