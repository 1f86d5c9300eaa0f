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
 * Bytes a string grows by per command while it is allocated. Redis zeroes what a SETRANGE past the end adds while
 * every other client waits: one SETRANGE of 512 MB held a server 260–280 ms on the 2-core development machine, steps
 * of 32 MiB 21–35 ms each, in about the same total time (a client PINGing every ms, 2026-11-28).
 */
export const ALLOCATE_STEP_BYTES: number = 32 * 2 ** 20;

const ZERO_BYTE = Buffer.alloc(1);

/**
 * A zeroed string of `length` bytes, then `trailer` (the guard) after them, or one zero byte more without: allocated
 * now, so a full server fails at create, not at the first add. It grows by {@link ALLOCATE_STEP_BYTES} a command,
 * so no command holds the server long; nobody reads it before the filter's meta says `ready`.
 */
export async function allocateBytes(
  client: RedisClient,
  key: string,
  length: number,
  trailer?: Uint8Array,
): Promise<void> {
  await client.del(key);
  for (let end = ALLOCATE_STEP_BYTES; end < length; end += ALLOCATE_STEP_BYTES) {
    await client.setrange(key, end - 1, ZERO_BYTE);
  }
  if (trailer === undefined) await client.setrange(key, length - 1, ZERO_BYTE);
  else await client.setrange(key, length, Buffer.from(trailer));
}
