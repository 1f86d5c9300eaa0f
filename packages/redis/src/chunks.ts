import {
  ChecksumMismatchError,
  FormatError,
  IncompatibleFiltersError,
  InvalidArgumentError,
} from '@bloomkit/core';
import { checkInteger, crc32c } from '@bloomkit/core/kit';
import { CHUNK_BYTES, readBytes } from './bytes.js';
import type { RedisClient } from './client.js';

/**
 * Resumable, chunked copies of a filter's file (docs/FORMAT.md) out of Redis and into it: RedisBloom's
 * `BF.SCANDUMP` / `BF.LOADCHUNK`, for a filter too large for one reply or request and for a transfer that may stop
 * and resume in another process.
 *
 * A cursor names the end of one chunk in one version of the file: `bk1:<end>:<length>:<crc>`, where `end` is the
 * offset just past the chunk, `length` the whole file's length and `crc` the file's checksum (8 hex digits, see
 * {@link fingerprint}).
 * The chunk's bytes are [end − its length, end). The CRC ties every chunk to one version of the filter: an export
 * resumed after the filter changed is refused, and an import checks the assembled file against it before it
 * creates anything.
 *
 * Staging: an import writes the chunks into `bloomkit:{NAME}:import:<i>` strings of at most 256 MiB (Redis caps a
 * string at 512 MB) and keeps its progress in the hash `bloomkit:{NAME}:import` (`length`, `crc`, `received`), all
 * in the filter's slot. Chunks must come in order; a chunk sent again is ignored, a chunk past a gap is refused.
 * When the last byte is in, the file is read back, checked and imported (`RedisBloomFilter.import`), then the
 * staging keys are deleted (an import that fails keeps them: sending the last chunk again retries it). An import that receives no chunk for {@link STAGING_TTL_SECONDS} expires.
 */

/** What {@link exportChunks} yields and {@link importChunk} takes. */
export interface FileChunk {
  /** Where the chunk ends and which file it belongs to: pass it to `importChunk`, or as `after` to resume an export. */
  readonly cursor: string;
  /** The file's bytes [end − bytes.length, end). */
  readonly bytes: Uint8Array;
}

/** A cursor's parts. */
export interface Cursor {
  readonly end: number;
  readonly length: number;
  readonly crc: number;
}

/** An unfinished import expires after a day without a chunk (the TTL is set again by every chunk). */
export const STAGING_TTL_SECONDS = 86_400;

/** Bytes per staging string: half of Redis's 512 MB limit. */
const SEGMENT_BYTES = 256 * 1024 * 1024;

/**
 * The longest file a cursor may describe: 2^39 bytes (512 GiB), twice the largest filter Redis can hold (a blocked
 * filter of 2^41 bits is 2^38 bytes), so at most 2,048 staging strings. A cursor is checked against it before any
 * key is created or any command sent.
 */
export const MAX_IMPORT_BYTES: number = 2 ** 39;

const CURSOR = /^bk1:(\d{1,16}):(\d{1,16}):([0-9a-f]{8})$/;

export function formatCursor({ end, length, crc }: Cursor): string {
  return `bk1:${end}:${length}:${hex(crc)}`;
}

/** Parses a cursor; anything else is an InvalidArgumentError naming `parameter`. */
export function parseCursor(where: string, parameter: string, cursor: unknown): Cursor {
  const match = typeof cursor === 'string' ? CURSOR.exec(cursor) : null;
  const end = match === null ? Number.NaN : Number(match[1]);
  const length = match === null ? Number.NaN : Number(match[2]);
  if (match === null || !(length >= 1 && length <= MAX_IMPORT_BYTES) || !(end >= 0 && end <= length)) {
    const shown = typeof cursor === 'string' && cursor.length > 80 ? `${cursor.slice(0, 80)}…` : cursor;
    throw new InvalidArgumentError(
      `${where}: ${parameter} must be a cursor 'bk1:<end>:<length>:<crc>' as exportChunks gives it (0 ≤ end ≤ length, 1 ≤ length ≤ 2^39), got ${typeof shown === 'string' ? JSON.stringify(shown) : typeof shown}`,
    );
  }
  return { end, length, crc: Number.parseInt(match[3]!, 16) };
}

/**
 * The chunks of `parts` (one file) from `after` on, `chunkBytes` at a time; the parts are read, never kept.
 * `after` must be a cursor of this same file (same length and CRC), else an IncompatibleFiltersError.
 */
export function* chunksOf(
  where: string,
  parts: readonly Uint8Array[],
  options: { readonly after?: string | undefined; readonly chunkBytes?: number | undefined },
): Generator<FileChunk> {
  const chunkBytes =
    options.chunkBytes === undefined
      ? CHUNK_BYTES
      : checkInteger(where, 'chunkBytes', options.chunkBytes, 1, SEGMENT_BYTES);
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const crc = fingerprint(parts, length);
  let at = 0;
  if (options.after !== undefined) {
    const after = parseCursor(where, 'after', options.after);
    if (!sameFile(after, { length, crc })) {
      throw new IncompatibleFiltersError(
        `${where}: the filter changed since cursor ${options.after} was given (its file is now ${length} bytes, CRC-32C ${hex(crc)}); export again from the start`,
      );
    }
    at = after.end;
  }
  // The part `at` falls in, and where in it.
  let part = 0;
  let inPart = at;
  while (part < parts.length && inPart >= parts[part]!.length) {
    inPart -= parts[part]!.length;
    part++;
  }
  while (at < length) {
    const bytes = new Uint8Array(Math.min(chunkBytes, length - at));
    for (let filled = 0; filled < bytes.length; ) {
      const source = parts[part]!;
      const take = Math.min(source.length - inPart, bytes.length - filled);
      bytes.set(source.subarray(inPart, inPart + take), filled);
      filled += take;
      inPart += take;
      if (inPart === source.length) {
        part++;
        inPart = 0;
      }
    }
    at += bytes.length;
    yield { cursor: formatCursor({ end: at, length, crc }), bytes };
  }
}

/**
 * The CRC-32C a cursor carries: of the file's bytes but its last 4, which for a bloomkit file is its own checksum
 * (docs/FORMAT.md §1), the CRC of everything before it. Not of the whole file: the CRC of data followed by its own
 * CRC is one constant (the residue), and CRCs are linear, so it would be the same for every file of one length.
 */
function fingerprint(parts: readonly Uint8Array[], length: number): number {
  let crc = 0;
  let left = Math.max(0, length - 4);
  for (const part of parts) {
    if (left === 0) break;
    const take = Math.min(left, part.length);
    crc = crc32c(take === part.length ? part : part.subarray(0, take), crc);
    left -= take;
  }
  return crc;
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}

/** The staging keys of an import into the filter `name` (its slot). */
export function stagingKeys(name: string): { progress: string; segment(i: number): string } {
  return {
    progress: `bloomkit:{${name}}:import`,
    segment: (i) => `bloomkit:{${name}}:import:${i}`,
  };
}

/** What an import staged so far for `name`, or undefined. */
export async function stagedProgress(client: RedisClient, name: string): Promise<Cursor | undefined> {
  return cursorOfFields(
    'RedisBloomFilter.importProgress',
    name,
    await client.hgetall(stagingKeys(name).progress),
  );
}

function cursorOfFields(where: string, name: string, fields: Record<string, string>): Cursor | undefined {
  if (Object.keys(fields).length === 0) return undefined;
  const cursor = `bk1:${fields.received}:${fields.length}:${fields.crc}`;
  return parseCursor(where, `the staging hash of ${JSON.stringify(name)}`, cursor);
}

/**
 * Stages one chunk of an import; returns the whole file (as parts of at most 256 MiB) once its last byte is in and
 * its CRC-32C matches, else undefined. The staging keys are deleted when the file is found corrupt; the caller
 * deletes them ({@link dropStaging}) once the file is imported, so a failed import can be retried with the last
 * chunk.
 */
export async function stageChunk(
  where: string,
  client: RedisClient,
  name: string,
  chunk: Cursor,
  bytes: Uint8Array,
): Promise<Uint8Array[] | undefined> {
  const keys = stagingKeys(name);
  const start = chunk.end - bytes.length;
  if (bytes.length === 0 || start < 0) {
    throw new InvalidArgumentError(
      `${where}: bytes must be the chunk that ends at the cursor (1 to ${chunk.end} bytes), got ${bytes.length}`,
    );
  }
  let staged = cursorOfFields(where, name, await client.hgetall(keys.progress));
  const fresh = start === 0 && (staged === undefined || !sameFile(staged, chunk));
  if (fresh) {
    // The first chunk of a file: a new import, replacing an unfinished one of another file.
    await dropStaging(client, name, staged);
    staged = { end: 0, length: chunk.length, crc: chunk.crc };
    await client.hset(keys.progress, 'length', chunk.length, 'crc', hex(chunk.crc), 'received', 0);
  }
  if (staged === undefined || !sameFile(staged, chunk)) {
    throw new InvalidArgumentError(
      `${where}: no import of this file is under way for ${JSON.stringify(name)}${staged === undefined ? '' : ` (one of another file is: ${formatCursor(staged)})`}; start from the first chunk`,
    );
  }
  if (start > staged.end) {
    throw new InvalidArgumentError(
      `${where}: the chunk starts at byte ${start} but only ${staged.end} were received; resume after ${formatCursor(staged)} (importProgress)`,
    );
  }
  if (staged.end > 0 && !(start === 0 && fresh)) {
    // Going on from what the hash says was received: its last segment must end there, or the next write would
    // reach an offset nothing was staged before (another client's hash claiming 2^39 bytes: 256 MiB at once).
    await checkStaged(where, client, name, staged, Math.floor((staged.end - 1) / SEGMENT_BYTES));
  }
  if (chunk.end > staged.end) {
    // Write the part not yet staged, split at the segments' bounds.
    for (let at = staged.end; at < chunk.end; ) {
      const segment = Math.floor(at / SEGMENT_BYTES);
      const upTo = Math.min(chunk.end, (segment + 1) * SEGMENT_BYTES);
      const piece = bytes.subarray(at - start, upTo - start);
      await client.setrange(
        keys.segment(segment),
        at - segment * SEGMENT_BYTES,
        Buffer.from(piece.buffer, piece.byteOffset, piece.length),
      );
      at = upTo;
    }
    await client.hset(keys.progress, 'received', chunk.end);
  }
  // The keys written so far: never more than the bytes received call for, whatever length the cursor claims.
  const received = Math.max(chunk.end, staged.end);
  await Promise.all(stagingKeyList(name, received).map((key) => client.expire(key, STAGING_TTL_SECONDS)));
  if (received < chunk.length) return undefined;

  // The staged bytes are read only once Redis shows they are all there, each segment at its size.
  await checkStaged(where, client, name, { ...chunk, end: received }, 0);
  const parts: Uint8Array[] = [];
  for (let i = 0; i * SEGMENT_BYTES < chunk.length; i++) {
    parts.push(
      await readBytes(client, keys.segment(i), Math.min(SEGMENT_BYTES, chunk.length - i * SEGMENT_BYTES)),
    );
  }
  const crc = fingerprint(parts, chunk.length);
  if (crc !== chunk.crc) {
    await dropStaging(client, name, { ...chunk, end: received });
    throw new ChecksumMismatchError(
      `${where}: the assembled file's CRC-32C is ${hex(crc)}, the cursors say ${hex(chunk.crc)}: a chunk was corrupted or came from another export; the import was discarded, start again`,
    );
  }
  return parts;
}

/**
 * Checks that segments `from`.. of an import hold the bytes its hash says were received (`staged.end`), each at its
 * size; else deletes the staging and throws a FormatError. So a staging hash that another client wrote (a `received`
 * it never staged, a length of 2^39) makes nothing allocated, in Redis or here.
 */
async function checkStaged(
  where: string,
  client: RedisClient,
  name: string,
  staged: Cursor,
  from: number,
): Promise<void> {
  const keys = stagingKeys(name);
  const segments = Math.ceil(staged.end / SEGMENT_BYTES);
  const indexes = Array.from({ length: Math.max(0, segments - from) }, (_, j) => from + j);
  const held = await Promise.all(indexes.map((i) => client.strlen(keys.segment(i))));
  const at = held.findIndex(
    (bytes, j) => bytes !== Math.min(SEGMENT_BYTES, staged.end - indexes[j]! * SEGMENT_BYTES),
  );
  if (at < 0) return;
  await dropStaging(client, name, staged);
  throw new FormatError(
    `${where}: the staging of ${JSON.stringify(name)} says ${staged.end} bytes were received, but its segment ${indexes[at]} holds ${held[at]} bytes: it was not staged by this import (or was cut); discarded, start again`,
  );
}

/** Deletes an import's staging keys: the progress hash and the segments of the bytes received (`staged.end`). */
export async function dropStaging(
  client: RedisClient,
  name: string,
  staged: Cursor | undefined,
): Promise<void> {
  await Promise.all(stagingKeyList(name, staged?.end ?? 0).map((key) => client.del(key)));
}

/** The staging keys of the first `length` bytes of an import into `name`: the progress hash and the segments. */
function stagingKeyList(name: string, length: number): string[] {
  const keys = stagingKeys(name);
  return [
    keys.progress,
    ...Array.from({ length: Math.ceil(length / SEGMENT_BYTES) }, (_, i) => keys.segment(i)),
  ];
}

/** True when two cursors name the same file (length and checksum). */
function sameFile(a: Pick<Cursor, 'length' | 'crc'>, b: Pick<Cursor, 'length' | 'crc'>): boolean {
  return a.length === b.length && a.crc === b.crc;
}
