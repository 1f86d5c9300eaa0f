import { BlockedBloomFilter } from '@bloomkit/blocked';
import { FormatError, InvalidArgumentError, type Key } from '@bloomkit/core';
import { batchHashes, hashBatch, keyList } from '@bloomkit/core/kit';
import { BinaryFuseFilter, fingerprintBitsFor } from '@bloomkit/fuse';
import { StandardBloomFilter } from '@bloomkit/standard';
import { kindOfBytes } from './any.js';

/**
 * A storage engine's filter block: one self-describing bloomkit file per immutable table file (an SST), of the kind
 * the engine picks per level, read back from its bytes in place. As RocksDB's `bloom_before_level` does: a Bloom
 * filter (`blocked`, the fastest to build and ask, or `standard`) where files live minutes, a binary fuse filter
 * (`fuse`, 9.04 bits a key at 0.39%, ~20% smaller than a Bloom filter at that rate) where they live hours.
 *
 * The block is the kind's own file (docs/FORMAT.md): its header names the kind, so {@link openFilterBlock} needs
 * nothing else, and any bloomkit reader (`deserializeAny`, `bloomkit info`) reads it too.
 */

/** The kinds a filter block is built as. */
export type FilterBlockKind = 'blocked' | 'standard' | 'fuse';

/** How a filter block is sized: bits a key or a rate (one of them), its kind, and its keys' hash seed. */
export interface FilterBlockOptions {
  /** `blocked` (default), `standard` or `fuse`. */
  readonly kind?: FilterBlockKind;
  /**
   * Bits a key (RocksDB's `bits_per_key`): a Bloom kind takes m = ⌈n × bitsPerKey⌉ bits and k = round(bitsPerKey ×
   * ln 2) hashes; `fuse` takes 16-bit fingerprints from 18 bits a key, 8-bit below. In [1, 64].
   */
  readonly bitsPerKey?: number;
  /** The rate at the block's key count, in (0, 1): a Bloom kind is sized for it; `fuse` takes the fingerprint width whose rate is at most it (2^-8 or 2^-16). */
  readonly fpr?: number;
  /** The seed of MurmurHash3 x86_128 that hashes the keys (default 0); with `hashes`, the seed they were hashed with. */
  readonly seed?: number;
}

/** A filter block read back: what the engine asks before it reads a table file. */
export interface FilterBlockReader {
  /** The block's kind. */
  readonly kind: FilterBlockKind;
  /** The seed its keys are hashed with (for {@link mayContainHash}). */
  readonly seed: number;
  /** The keys it holds: distinct keys for `fuse`; for a Bloom kind, the adds that changed it (its `count`). */
  readonly keys: number;
  /** The block's bytes. */
  readonly byteLength: number;
  /** False when `key` is certainly not in the table file; true when it may be. Allocates nothing. */
  mayContain(key: Key): boolean;
  /**
   * {@link mayContain} of a key already hashed: `hash` holds its MurmurHash3 x86_128 words h1..h4 with the block's
   * seed, as core's `hashInto` writes them (hash a key once, ask every level's block). Allocates nothing.
   */
  mayContainHash(hash: Int32Array): boolean;
}

const WHERE = 'buildFilterBlock';

/**
 * The filter block of a table file's keys: `keys` as strings or bytes, or already hashed (an Int32Array of h1..h4 a
 * key, as core's `hashInto` and `hashBatch` write them, with `options.seed`). Returns the block's bytes; repeats
 * are allowed. Give `bitsPerKey` or `fpr` (not both; default `fpr` 0.01).
 */
export function buildFilterBlock(
  keys: Iterable<Key> | Int32Array,
  options: FilterBlockOptions = {},
): Uint8Array {
  const kind = options.kind ?? 'blocked';
  if (kind !== 'blocked' && kind !== 'standard' && kind !== 'fuse') {
    throw new InvalidArgumentError(`${WHERE}: kind must be blocked, standard or fuse, got ${String(kind)}`);
  }
  if (options.bitsPerKey !== undefined && options.fpr !== undefined) {
    throw new InvalidArgumentError(`${WHERE}: give bitsPerKey or fpr, not both`);
  }
  const bitsPerKey = options.bitsPerKey;
  if (bitsPerKey !== undefined && !(typeof bitsPerKey === 'number' && bitsPerKey >= 1 && bitsPerKey <= 64)) {
    throw new InvalidArgumentError(
      `${WHERE}: bitsPerKey must be a number in [1, 64], got ${String(bitsPerKey)}`,
    );
  }
  const fpr = bitsPerKey === undefined ? (options.fpr ?? 0.01) : undefined;
  const seed = options.seed ?? 0;
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new InvalidArgumentError(`${WHERE}: seed must be an integer in [0, 2^32 - 1], got ${String(seed)}`);
  }
  const hashes = keys instanceof Int32Array ? checkedHashes(keys) : hashesOf(keys, seed);
  const count = hashes.length / 4;
  if (kind === 'fuse') {
    const fingerprintBits = fpr === undefined ? (bitsPerKey! >= 18 ? 16 : 8) : fingerprintBitsFor(fpr, WHERE);
    const words = new BigUint64Array(count);
    const halves = new Uint32Array(words.buffer);
    for (let i = 0; i < count; i++) {
      halves[2 * i] = hashes[4 * i]!;
      halves[2 * i + 1] = hashes[4 * i + 1]!;
    }
    return BinaryFuseFilter.fromKeyHashes(words, { fingerprintBits, seed }).serialize();
  }
  const Class = kind === 'blocked' ? BlockedBloomFilter : StandardBloomFilter;
  const capacity = Math.max(1, count);
  const filter =
    fpr === undefined
      ? new Class({
          bits: Math.max(64, Math.ceil(capacity * bitsPerKey!)),
          hashes: Math.max(1, Math.min(64, Math.round(bitsPerKey! * Math.LN2))),
          seed,
        })
      : Class.create(capacity, fpr, { seed });
  if (count > 0) filter.addHashes(hashes, count);
  return filter.serialize();
}

/** A caller's hashes: 4 words a key. */
function checkedHashes(hashes: Int32Array): Int32Array {
  if (hashes.length % 4 !== 0) {
    throw new InvalidArgumentError(
      `${WHERE}: hashes must hold 4 words (h1..h4) a key, got ${hashes.length} words`,
    );
  }
  return hashes;
}

/** The keys' h1..h4, 4 words a key, hashed a batch at a time. */
function hashesOf(keys: Iterable<Key>, seed: number): Int32Array {
  const list = keyList(WHERE, keys);
  const out = new Int32Array(4 * list.length);
  for (let start = 0; start < list.length; ) {
    const count = hashBatch(list, start, seed, WHERE);
    out.set(batchHashes().subarray(0, 4 * count), 4 * start);
    start += count;
  }
  return out;
}

/** How {@link openFilterBlock} reads a block. */
export interface OpenFilterBlockOptions {
  /**
   * Read a copy of the bytes rather than the bytes in place (default false): the caller's array may then change or
   * go. A fuse block's copy of 256 KiB and more lies in WebAssembly memory where it loads, where its single lookups
   * run faster (`@bloomkit/fuse`'s README).
   */
  readonly copy?: boolean;
}

/**
 * Reads a filter block, in place unless `options.copy` (its bytes must then not change while it is used); the
 * checksum is verified once here. A file that is not a filter block (another kind, corrupt bytes) is a FormatError.
 */
export function openFilterBlock(bytes: Uint8Array, options?: OpenFilterBlockOptions): FilterBlockReader {
  const where = 'openFilterBlock';
  const copy = options?.copy ?? false;
  if (typeof copy !== 'boolean') {
    throw new InvalidArgumentError(`${where}: options.copy must be a boolean, got ${String(copy)}`);
  }
  const { Class } = kindOfBytes(bytes);
  const name = Class.kind.name;
  if (name === 'fuse') {
    const filter = BinaryFuseFilter.deserialize(bytes, { copy });
    return {
      kind: 'fuse',
      seed: filter.seed,
      keys: filter.size,
      byteLength: bytes.length,
      mayContain: (key) => filter.has(key),
      mayContainHash: (hash) => filter.hasHash(hash),
    };
  }
  if (name !== 'blocked' && name !== 'standard') {
    throw new FormatError(
      `${where}: a filter block is a blocked, standard or fuse file, this one is ${name}`,
    );
  }
  const filter = (name === 'blocked' ? BlockedBloomFilter : StandardBloomFilter).deserialize(bytes, { copy });
  return {
    kind: name,
    seed: filter.seed,
    keys: filter.count,
    byteLength: bytes.length,
    mayContain: (key) => filter.has(key),
    mayContainHash: (hash) => filter.hasHash(hash),
  };
}
