import { blockedLayout, InvalidArgumentError } from '@bloomkit/core';
import { CuckooFilter } from '@bloomkit/cuckoo';
import {
  type FilterClass,
  isSingleKind,
  kindByName,
  kindNames,
  type SingleFilterClass,
} from '@bloomkit/filters';
import { BinaryFuseFilter } from '@bloomkit/fuse';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { WindowBloomFilter } from '@bloomkit/window';

/**
 * How Redis keeps a kind, read from its record in the table of `@bloomkit/filters` (never from its name), so a new
 * kind that shares a storage shape needs no edit here:
 * - `bits`: a bit filter in one string (standard, partitioned, or any single bit kind whose layout is not blocked);
 * - `shards`: a bit filter of the blocked layout, cut into shards of whole blocks (a block is self-contained);
 * - `counters`: a single kind with counters (counting), 4- or 8-bit counters in one string;
 * - `chain`: the scalable filter's chain, one string per sub-filter;
 * - `ring`: a window's ring of slices in one string, its generations' state in the meta hash;
 * - `cuckoo`: a cuckoo filter's table of fingerprints in one string, changed only by scripts (lua/cuckoo.lua);
 * - `fuse`: a binary fuse filter's fingerprints in one string, imported whole and only read (lua/fuse.lua).
 * A chained kind other than the scalable filter has no Redis storage yet (its rules of growth are its own).
 */
export type RedisStorage = 'bits' | 'shards' | 'counters' | 'chain' | 'ring' | 'cuckoo' | 'fuse';

/** A kind Redis can hold: its class (its record is `Class.kind`) and how it is stored. */
export interface RedisKind {
  readonly Class: FilterClass;
  readonly storage: RedisStorage;
}

/** How Redis stores `Class`, or undefined when it cannot. */
function storageOf(Class: FilterClass): RedisStorage | undefined {
  if (Class.kind.params === 'ring') return Class === WindowBloomFilter ? 'ring' : undefined;
  if (Class.kind.params === 'cuckoo') return Class === CuckooFilter ? 'cuckoo' : undefined;
  if (Class.kind.params === 'fuse') return Class === (BinaryFuseFilter as unknown) ? 'fuse' : undefined;
  if (!isSingleKind(Class)) return Class === ScalableBloomFilter ? 'chain' : undefined;
  if (Class.kind.counterWidths.some((width) => width !== 0)) return 'counters';
  return Class.kind.layout === blockedLayout ? 'shards' : 'bits';
}

/** The names of the kinds a filter in Redis can be: those of the table that one of the storages above holds. */
export function redisKindNames(): string[] {
  return kindNames().filter((name) => storageOf(kindByName(name)!) !== undefined);
}

/** The kind named `name`, or undefined when the table has none or Redis cannot hold it. */
export function redisKind(name: unknown): RedisKind | undefined {
  const Class = typeof name === 'string' ? kindByName(name) : undefined;
  const storage = Class === undefined ? undefined : storageOf(Class);
  return storage === undefined ? undefined : { Class: Class!, storage };
}

/** The kind named `name`, or an InvalidArgumentError that lists the kinds Redis holds. */
export function requireRedisKind(where: string, name: unknown): RedisKind {
  const kind = redisKind(name);
  if (kind === undefined) {
    throw new InvalidArgumentError(
      `${where}: kind must be one of ${redisKindNames().join(', ')}, got ${JSON.stringify(name) ?? String(name)}`,
    );
  }
  return kind;
}

/** The class that builds a local filter of a single kind (export): `new Class(shape, state)`. */
export function singleClass(kind: RedisKind): SingleFilterClass {
  return kind.Class as SingleFilterClass;
}
