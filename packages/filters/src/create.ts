import { type BloomFilter, InvalidArgumentError } from '@bloomkit/core';
import { requireKind } from './any.js';
import { type CreateOptions, isSingleKind } from './filter-class.js';

/** What {@link createFilter} builds: a capacity and a rate, or (single kinds) an explicit m and k. */
export interface FilterSpec extends CreateOptions {
  /** Expected distinct keys, with `fpr`: the kind's `create` sizes the filter. */
  readonly capacity?: number | undefined;
  /** Target false-positive rate at `capacity`, in (0, 1). */
  readonly fpr?: number | undefined;
  /** m, with `hashes`: an explicit shape (not for chained kinds, which grow). */
  readonly bits?: number | undefined;
  /** k, with `bits`. */
  readonly hashes?: number | undefined;
}

/**
 * A new, empty filter of kind `name` (`standard`, `blocked`, …): sized by `create(capacity, fpr)`, or built from an
 * explicit `bits` and `hashes`. `counterBits` goes to a kind with counters and is refused for the others. Bad
 * combinations get an InvalidArgumentError that names the parameters.
 */
export function createFilter(name: string, spec: FilterSpec): BloomFilter {
  const where = 'createFilter';
  const Class = requireKind(where, 'kind', name);
  const { capacity, fpr, bits, hashes, counterBits, duration, type, ...rest } = spec;
  const hasCounters = Class.kind.counterWidths.some((width) => width !== 0);
  if (counterBits !== undefined && !hasCounters) {
    throw new InvalidArgumentError(`${where}: counterBits applies to a kind with counters, not ${name}`);
  }
  if (duration !== undefined && Class.kind.params !== 'ring') {
    throw new InvalidArgumentError(`${where}: duration applies to a window kind, not ${name}`);
  }
  if (type !== undefined && Class.kind.params !== 'split-block') {
    throw new InvalidArgumentError(`${where}: type applies to the Parquet split-block kind, not ${name}`);
  }
  const options: CreateOptions = {
    ...rest,
    ...(type === undefined ? {} : { type }),
    ...(counterBits === undefined ? {} : { counterBits }),
    ...(duration === undefined ? {} : { duration }),
  };
  if (bits !== undefined || hashes !== undefined) {
    if (bits === undefined || hashes === undefined) {
      throw new InvalidArgumentError(`${where}: bits and hashes go together`);
    }
    if (capacity !== undefined || fpr !== undefined) {
      throw new InvalidArgumentError(`${where}: give capacity and fpr, or bits and hashes, not both`);
    }
    if (!isSingleKind(Class)) {
      throw new InvalidArgumentError(
        `${where}: a ${name} filter is sized by capacity and fpr (its shape follows from them), not by bits and hashes`,
      );
    }
    return new Class({ ...options, bits, hashes });
  }
  if (capacity === undefined || fpr === undefined) {
    throw new InvalidArgumentError(`${where}: give capacity and fpr (or bits and hashes)`);
  }
  return Class.create(capacity, fpr, options);
}
