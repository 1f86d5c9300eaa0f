import { totalmem } from 'node:os';
import { BlockedBloomFilter } from '@bloomkit/blocked';
import { type ByteSource, FilterKind, readHeader } from '@bloomkit/core';
import { CountingBloomFilter } from '@bloomkit/counting';
import { PartitionedBloomFilter } from '@bloomkit/partitioned';
import { ScalableBloomFilter } from '@bloomkit/scalable';
import { StandardBloomFilter } from '@bloomkit/standard';
import { CliError } from './errors.js';

/** Every kind the command works with, by the name `--kind` takes. */
export const KIND_NAMES = ['standard', 'partitioned', 'counting', 'scalable', 'blocked'] as const;
export type KindName = (typeof KIND_NAMES)[number];

/** Counter widths of the counting kind. */
export type CounterBits = 4 | 8 | 16;

export type AnyFilter =
  | StandardBloomFilter
  | PartitionedBloomFilter
  | CountingBloomFilter
  | ScalableBloomFilter
  | BlockedBloomFilter;

/** How to build a filter: a capacity and a rate, or (not for scalable) explicit bits and hashes. */
export interface FilterSpec {
  readonly kind: KindName;
  readonly capacity?: number | undefined;
  readonly fpr?: number | undefined;
  readonly bits?: number | undefined;
  readonly hashes?: number | undefined;
  readonly seed?: number | 'random' | undefined;
  readonly counterBits?: CounterBits | undefined;
}

/**
 * The memory the command lets one filter take: this machine's RAM. The library's default cap (4 GiB) guards
 * applications against hostile sizes; here the operator typed the size, so the only refusal is a filter that
 * cannot fit at all.
 */
export const MAX_FILTER_BYTES: number = totalmem();

/** A new, empty filter as the spec says. */
export function createFilter(spec: FilterSpec): AnyFilter {
  const { kind, capacity, fpr, bits, hashes } = spec;
  const options = { maxBytes: MAX_FILTER_BYTES, ...(spec.seed === undefined ? {} : { seed: spec.seed }) };
  if (spec.counterBits !== undefined && kind !== 'counting') {
    throw new CliError('--counter-bits applies to --kind counting only');
  }
  if (bits !== undefined || hashes !== undefined) {
    if (bits === undefined || hashes === undefined) throw new CliError('--bits and --hashes go together');
    if (capacity !== undefined || fpr !== undefined) {
      throw new CliError('give either --capacity and --fpr, or --bits and --hashes, not both');
    }
    const shape = { bits, hashes, ...options };
    switch (kind) {
      case 'standard':
        return new StandardBloomFilter(shape);
      case 'partitioned':
        return new PartitionedBloomFilter(shape);
      case 'blocked':
        return new BlockedBloomFilter(shape);
      case 'counting':
        return new CountingBloomFilter({ ...shape, ...counterBitsOf(spec) });
      case 'scalable':
        throw new CliError(
          'a scalable filter is sized by --capacity and --fpr (its sub-filters grow as keys come)',
        );
    }
  }
  if (capacity === undefined || fpr === undefined) {
    throw new CliError('give --capacity N and --fpr P (or --bits M and --hashes K)');
  }
  switch (kind) {
    case 'standard':
      return StandardBloomFilter.create(capacity, fpr, options);
    case 'partitioned':
      return PartitionedBloomFilter.create(capacity, fpr, options);
    case 'blocked':
      return BlockedBloomFilter.create(capacity, fpr, options);
    case 'counting':
      return CountingBloomFilter.create(capacity, fpr, { ...options, ...counterBitsOf(spec) });
    case 'scalable':
      return ScalableBloomFilter.create(capacity, fpr, options);
  }
}

function counterBitsOf(spec: FilterSpec): { counterBits?: CounterBits } {
  return spec.counterBits === undefined ? {} : { counterBits: spec.counterBits };
}

/**
 * Reads a filter of any kind from its file's bytes (one array or parts), in place: the bytes were read for this
 * filter alone. The checksum is verified unless `verifyChecksum` is false.
 */
export function decodeFilter(bytes: ByteSource, verifyChecksum = true): AnyFilter {
  const { kind } = readHeader(bytes, { verifyChecksum: false });
  const options = { copy: false, verifyChecksum };
  switch (kind) {
    case FilterKind.Standard:
      return StandardBloomFilter.deserialize(bytes, options);
    case FilterKind.Partitioned:
      return PartitionedBloomFilter.deserialize(bytes, options);
    case FilterKind.Counting:
      return CountingBloomFilter.deserialize(bytes, options);
    case FilterKind.Scalable:
      return ScalableBloomFilter.deserialize(bytes, { ...options, maxBytes: MAX_FILTER_BYTES });
    case FilterKind.Blocked:
      return BlockedBloomFilter.deserialize(bytes, options);
    default:
      throw new CliError(`unsupported filter kind ${kind}`);
  }
}

/** The kind's name, as `--kind` and `info` spell it. */
export function kindName(filter: AnyFilter): KindName {
  if (filter instanceof ScalableBloomFilter) return 'scalable';
  if (filter instanceof CountingBloomFilter) return 'counting';
  if (filter instanceof PartitionedBloomFilter) return 'partitioned';
  if (filter instanceof BlockedBloomFilter) return 'blocked';
  return 'standard';
}
