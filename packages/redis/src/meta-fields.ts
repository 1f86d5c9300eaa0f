import { FormatError } from '@bloomkit/core';
import { metaKey } from './keys.js';

/** The most shards a blocked filter is cut into (create's limit on `shards`). */
export const MAX_SHARDS: number = 2 ** 20;

/**
 * One meta hash's fields read as untrusted input: each read checks its field's text and range, and a field out of
 * range is a FormatError that names it, the key and what it must be.
 */
export class MetaFields {
  constructor(
    readonly where: string,
    readonly name: string,
    private readonly fields: Record<string, string>,
  ) {}

  /** The raw text of `field` (undefined when absent). */
  text(field: string): string | undefined {
    return this.fields[field];
  }

  /** The error for `field` not being `range`. */
  bad(field: string, range: string): FormatError {
    return new FormatError(
      `${this.where}: meta field ${field} of ${metaKey(this.name)} must be ${range}, got ${JSON.stringify(this.fields[field])}`,
    );
  }

  /** `field` as a decimal integer in [min, max]. */
  int(field: string, min: number, max: number): number {
    const text = this.fields[field];
    const value = Number(text);
    if (
      text === undefined ||
      !/^\d+$/.test(text) ||
      !Number.isSafeInteger(value) ||
      value < min ||
      value > max
    ) {
      throw this.bad(field, `an integer in [${min}, ${max}]`);
    }
    return value;
  }

  /** `field` as a rate in (0, 1). */
  rate(field: string): number {
    const value = Number(this.fields[field]);
    if (!(value > 0 && value < 1)) throw this.bad(field, 'a number in (0, 1)');
    return value;
  }

  /** `field` as 0 (a field another storage family uses). */
  zero(field: string): number {
    return this.int(field, 0, 0);
  }

  /** The fields of a filter in one string: one shard, no shard blocks. */
  oneString(): { shards: number; shardBlocks: number } {
    return { shards: this.int('shards', 1, 1), shardBlocks: this.zero('shardBlocks') };
  }

  /** The fields only a scalable filter sets, as 0. */
  noGrowth(): { growth: number; tightening: number } {
    return { growth: this.zero('growth'), tightening: this.zero('tightening') };
  }
}
