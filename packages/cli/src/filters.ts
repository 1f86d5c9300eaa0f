import { totalmem } from 'node:os';
import type { ByteSource, FilterHeader } from '@bloomkit/core';
// Loading the exceptions kind adds it to the table, so every command reads files of kind 6 like any other.
import { ExceptionFilter } from '@bloomkit/exceptions';
import {
  type AnyFilter,
  type FilterSpec as AnySpec,
  classOf,
  createFilter as createAny,
  isSingleKind,
  kindByName,
  kindNames,
  kindOfHeader,
} from '@bloomkit/filters';
import { WindowBloomFilter } from '@bloomkit/window';
import { CliError } from './errors.js';

export { WindowBloomFilter };

export type { AnyFilter };

/** How to build a filter: `--kind` and a capacity and rate, or (single kinds) explicit bits and hashes. */
export interface FilterSpec extends AnySpec {
  readonly kind: string;
}

/**
 * The memory the command lets one filter take: this machine's RAM. The library's default cap (4 GiB) guards
 * applications against hostile sizes; here the operator typed the size, so the only refusal is a filter that
 * cannot fit at all.
 */
export const MAX_FILTER_BYTES: number = totalmem();

/** The `--kind` names: every kind in the table of `@bloomkit/filters`. */
export function kindChoices(): string {
  return kindNames().join(', ');
}

/** A `--kind` argument, checked against the table. */
export function parseKind(text: string): string {
  if (kindByName(text) === undefined)
    throw new CliError(`--kind must be one of ${kindChoices()}, got '${text}'`);
  return text;
}

/** A new, empty filter as the spec says; the flags' combinations are checked here, the values by the library. */
export function createFilter(spec: FilterSpec): AnyFilter {
  const { kind, ...shape } = spec;
  const Class = kindByName(kind)!;
  if (spec.counterBits !== undefined && !Class.kind.counterWidths.some((width) => width !== 0)) {
    throw new CliError(`--counter-bits applies to a kind with counters, not --kind ${kind}`);
  }
  if (spec.duration !== undefined && Class.kind.params !== 'ring') {
    throw new CliError(`--duration applies to --kind window (a filter that forgets), not --kind ${kind}`);
  }
  if (spec.bits !== undefined || spec.hashes !== undefined) {
    if (spec.bits === undefined || spec.hashes === undefined) {
      throw new CliError('--bits and --hashes go together');
    }
    if (spec.capacity !== undefined || spec.fpr !== undefined) {
      throw new CliError('give either --capacity and --fpr, or --bits and --hashes, not both');
    }
    if (!isSingleKind(Class)) {
      throw new CliError(`a ${kind} filter is sized by --capacity and --fpr (its shape follows from them)`);
    }
  } else if (spec.capacity === undefined || spec.fpr === undefined) {
    throw new CliError('give --capacity N and --fpr P (or --bits M and --hashes K)');
  }
  return createAny(kind, { ...shape, maxBytes: MAX_FILTER_BYTES }) as AnyFilter;
}

/**
 * Reads a filter of the kind its (already read) header names from its file's bytes (one array or parts), in place
 * (the bytes were read for this filter alone), or with `copy` from a copy of them (see files.ts, FilterUse). The
 * checksum is verified unless `verifyChecksum` is false.
 */
export function decodeFilter(
  header: FilterHeader,
  bytes: ByteSource,
  verifyChecksum = true,
  copy = false,
): AnyFilter {
  return kindOfHeader(header).deserialize(bytes, {
    copy,
    verifyChecksum,
    maxBytes: MAX_FILTER_BYTES,
  }) as AnyFilter;
}

/** The kind's name, as `--kind` and `info` spell it. */
export function kindName(filter: AnyFilter): string {
  return classOf(filter)?.kind.name ?? 'unknown';
}

/**
 * True for a kind whose capacity is not a limit: it grows as keys come (a chain of sub-filters) or forgets old
 * keys (a window), and keeps its rate either way.
 */
export function outgrowsCapacity(filter: AnyFilter): boolean {
  if (filter instanceof ExceptionFilter) return outgrowsCapacity(filter.filter as AnyFilter);
  return kindOutgrowsCapacity(classOf(filter)?.kind.name);
}

/** {@link outgrowsCapacity} for a kind named in the table (a filter in Redis, known by its kind's name). */
export function kindOutgrowsCapacity(name: string | undefined): boolean {
  const params = name === undefined ? undefined : kindByName(name)?.kind.params;
  return params === 'chain' || params === 'ring';
}

/** A filter with an exception list (kind 6), or undefined for any other. */
export function exceptionsOf(filter: AnyFilter): ExceptionFilter | undefined {
  return filter instanceof ExceptionFilter ? filter : undefined;
}

/** The filter with an exception list: itself when it has one, else a new, empty list over it. */
export function withExceptions(filter: AnyFilter): ExceptionFilter {
  return exceptionsOf(filter) ?? ExceptionFilter.wrap(filter);
}

/**
 * True when the filter takes keys already hashed (`addHash`, `hasHash`, `addHashes`, `hasHashes`), so the CLI can
 * hash input keys where they lie in its read buffer: every kind but an exceptions file, whose list needs the key
 * itself.
 */
export function takesHashes(filter: AnyFilter): filter is HashingFilter {
  const methods = filter as {
    addHash?: unknown;
    hasHash?: unknown;
    addHashes?: unknown;
    hasHashes?: unknown;
  };
  return (
    typeof methods.addHash === 'function' &&
    typeof methods.hasHash === 'function' &&
    typeof methods.addHashes === 'function' &&
    typeof methods.hasHashes === 'function'
  );
}

/** A filter that takes keys already hashed (see {@link takesHashes}). */
export type HashingFilter = Extract<AnyFilter, { addHashes: unknown }>;
