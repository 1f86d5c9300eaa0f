import { BlockedBloomFilter } from '@bloomkit/blocked';
import { type BloomFilter, InvalidArgumentError } from '@bloomkit/core';
import { CountingBloomFilter } from '@bloomkit/counting';
import { CuckooFilter } from '@bloomkit/cuckoo';
import { BinaryFuseFilter } from '@bloomkit/fuse';
import { SplitBlockBloomFilter } from '@bloomkit/parquet';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { WindowBloomFilter } from '@bloomkit/window';
import type { FilterClass } from './filter-class.js';

/**
 * The table of kinds: bloomkit's filter kinds, one class each, in id order. This is the one list of kinds in the
 * project; the CLI, `@bloomkit/redis` and the benchmark read it and hold none of their own.
 *
 * Adding a kind (CONTRIBUTING.md, "Adding a kind"): a package (or a file in one) whose class carries its
 * `static kind` record and the statics of {@link FilterClass}, and one line here.
 */
const BUILT_IN = [
  StandardBloomFilter,
  PartitionedBloomFilter,
  CountingBloomFilter,
  ScalableBloomFilter,
  BlockedBloomFilter,
  WindowBloomFilter,
  SplitBlockBloomFilter,
  BinaryFuseFilter,
  CuckooFilter,
] as const;
// (The table's type is inferred, so this package builds its declarations without isolatedDeclarations.)

/** A filter of any built-in kind (the instance type of each class in the table). */
export type AnyFilter = (typeof BUILT_IN)[number]['prototype'];

const table: FilterClass[] = [...BUILT_IN];

/** Every kind, built in or registered, in id order. */
export function kinds(): readonly FilterClass[] {
  return table;
}

/** The kind with format id `id`, or undefined. */
export function kindById(id: number): FilterClass | undefined {
  return table.find((Class) => Class.kind.id === id);
}

/** The kind named `name` (`standard`, `blocked`, …), or undefined. */
export function kindByName(name: string): FilterClass | undefined {
  return table.find((Class) => Class.kind.name === name);
}

/** The kinds' names, in table order: what `--kind` and Redis's `kind` accept. */
export function kindNames(): string[] {
  return table.map((Class) => Class.kind.name);
}

/** "1 standard, 2 partitioned, …": the known kinds, for messages. */
export function describeKinds(): string {
  return table.map((Class) => `${Class.kind.id} ${Class.kind.name}`).join(', ');
}

/** The kind of a filter object: the table's class it is an instance of, or undefined. */
export function classOf(filter: BloomFilter): FilterClass | undefined {
  return table.find((Class) => filter instanceof (Class as unknown as abstract new () => unknown));
}

/**
 * Adds a kind to the table at run time, for a private kind (ids 128–255 are never assigned by bloomkit) or a test:
 * after it, {@link deserializeAny}, {@link createFilter}, the CLI (loaded with `node --import`) and `@bloomkit/redis`
 * (for single kinds) treat it as one of their own. Refuses an id or name already taken, an id outside [1, 255], and
 * a name that is not lower-case letters, digits and dashes.
 */
export function registerKind(Class: FilterClass): void {
  const where = 'registerKind';
  const kind = (Class as Partial<FilterClass> | undefined)?.kind;
  if (typeof Class !== 'function' || typeof kind !== 'object' || kind === null) {
    throw new InvalidArgumentError(`${where}: give a filter class with a static kind record`);
  }
  for (const method of ['create', 'deserialize', 'fromJSON'] as const) {
    if (typeof Class[method] !== 'function') {
      throw new InvalidArgumentError(`${where}: ${kind.className} has no static ${method}`);
    }
  }
  if (!Number.isInteger(kind.id) || kind.id < 1 || kind.id > 255) {
    throw new InvalidArgumentError(`${where}: kind.id must be an integer in [1, 255], got ${kind.id}`);
  }
  if (typeof kind.name !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(kind.name)) {
    throw new InvalidArgumentError(
      `${where}: kind.name must be 1-32 lower-case letters, digits and dashes, starting with a letter`,
    );
  }
  const taken = kindById(kind.id) ?? kindByName(kind.name);
  if (taken !== undefined) {
    throw new InvalidArgumentError(
      `${where}: kind ${kind.id} ${kind.name} clashes with kind ${taken.kind.id} ${taken.kind.name}`,
    );
  }
  table.push(Class);
  table.sort((a, b) => a.kind.id - b.kind.id);
}
