import type { KindRecord } from '@bloomkit/core';
import { BLOCK_BITS, FormatError, MAX_BLOCKED_BITS } from '@bloomkit/core';
import { MAX_GROWTH, MIN_GROWTH } from '@bloomkit/scalable';
import { WindowBloomFilter } from '@bloomkit/window';
import { MAX_STRING_BITS } from './bytes.js';
import { chainShapes, decodeChainShapes } from './chain-shapes.js';
import { GUARD_BYTES } from './guard.js';
import { metaKey } from './keys.js';
import type { RedisStorage } from './kinds.js';
import type { RedisFilterParams } from './params.js';

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

/** The fields every kind has, read and checked by decodeParams before the family's own. */
export type CommonParams = Pick<
  RedisFilterParams,
  'kind' | 'seed' | 'hashes' | 'capacity' | 'fpr' | 'exceptions' | 'duration'
>;

/** Reads the fields of one storage family on top of the common ones, checked against each other. */
type FamilyDecoder = (meta: MetaFields, base: CommonParams, record: KindRecord) => RedisFilterParams;

/** Each storage family's reader of its fields (kinds.ts says which family a kind is). */
export const FAMILY_DECODERS: Readonly<Record<RedisStorage, FamilyDecoder>> = {
  chain(meta, base) {
    const growth = Number(meta.text('growth'));
    if (!(growth >= MIN_GROWTH && growth <= MAX_GROWTH)) {
      throw meta.bad('growth', `a number in [${MIN_GROWTH}, ${MAX_GROWTH}]`);
    }
    const tightening = meta.rate('tightening');
    const schedule = { initialCapacity: base.capacity!, fpr: base.fpr!, growth, tightening };
    // Absent in a hash written before `shapes` existed: the schedule's own sizing, as the filter was grown then.
    const text = meta.text('shapes');
    const shapes =
      text === undefined ? chainShapes(schedule) : decodeChainShapes(meta.where, meta.name, text, schedule);
    const first = shapes[0];
    if (first === undefined)
      throw meta.bad('capacity', 'small enough for sub-filter 0 to fit one Redis string');
    const bits = meta.int('bits', first.bits, first.bits);
    if (base.hashes !== first.hashes)
      throw meta.bad('hashes', `${first.hashes}, the k of sub-filter 0 in shapes`);
    return {
      ...base,
      bits,
      counterBits: meta.zero('counterBits'),
      ...meta.oneString(),
      growth,
      tightening,
      shapes,
    };
  },

  ring(meta, base) {
    const fixed = meta.noGrowth();
    if (base.capacity === null) throw meta.bad('capacity', 'the window, an integer in [1, 2^53 - 1]');
    let shape: ReturnType<typeof WindowBloomFilter.shapeOf>;
    try {
      const duration = base.duration === 0 ? undefined : base.duration;
      shape = WindowBloomFilter.shapeOf(base.capacity, base.fpr!, { duration });
    } catch (error) {
      throw new FormatError(
        `${meta.where}: meta of ${metaKey(meta.name)} holds an impossible window: ${(error as Error).message}`,
      );
    }
    const ringBits = (shape.hashes + shape.ageSlices) * shape.sliceBits;
    const bits = meta.int('bits', ringBits, ringBits);
    if (base.hashes !== shape.hashes)
      throw meta.bad('hashes', `${shape.hashes}, what the window's sizing gives`);
    if (base.exceptions) throw meta.bad('exceptions', '0 for a window filter (exceptions live beside bits)');
    // The shape as written for the functions (window-store.ts), which read it rather than size the window: the
    // values this sizing gives, so that both doors refuse the same hash.
    meta.int('ageSlices', shape.ageSlices, shape.ageSlices);
    meta.int('sliceBits', shape.sliceBits, shape.sliceBits);
    meta.int('generationKeys', shape.generation, shape.generation);
    if (meta.text('period') !== String(shape.period)) throw meta.bad('period', String(shape.period));
    return { ...base, bits, counterBits: meta.zero('counterBits'), ...meta.oneString(), ...fixed };
  },

  counters(meta, base) {
    const fixed = meta.noGrowth();
    const counterBits = meta.int('counterBits', 4, 8);
    if (counterBits !== 4 && counterBits !== 8) throw meta.bad('counterBits', 'one of 4, 8');
    // The guard's 32 bits follow the counters in the same string (guard.ts).
    const bits = meta.int('bits', 1, Math.floor((MAX_STRING_BITS - 8 * GUARD_BYTES) / counterBits));
    return { ...base, bits, counterBits, ...meta.oneString(), ...fixed };
  },

  shards(meta, base) {
    const fixed = meta.noGrowth();
    const bits = meta.int('bits', BLOCK_BITS, MAX_BLOCKED_BITS);
    if (bits % BLOCK_BITS !== 0) throw meta.bad('bits', `a multiple of ${BLOCK_BITS}`);
    const blocks = bits / BLOCK_BITS;
    const shardBlocks = meta.int('shardBlocks', 1, Math.min(blocks, MAX_STRING_BITS / BLOCK_BITS));
    const shards = meta.int('shards', 1, MAX_SHARDS);
    const needed = Math.ceil(blocks / shardBlocks);
    if (shards !== needed) {
      throw meta.bad(
        'shards',
        `${needed}, the shards that ${blocks} blocks of ${shardBlocks} per shard need`,
      );
    }
    return { ...base, bits, counterBits: meta.zero('counterBits'), shards, shardBlocks, ...fixed };
  },

  bits(meta, base, record) {
    const fixed = meta.noGrowth();
    // The guard's 32 bits follow the bits in the same string (guard.ts): Redis's largest bit offset is 2^32 - 1.
    const bits = meta.int('bits', 1, MAX_STRING_BITS - 8 * GUARD_BYTES);
    const unit = record.layout.bitsUnit(base.hashes);
    if (bits % unit !== 0) {
      throw meta.bad('bits', `a multiple of ${unit} (the layout's unit with k = ${base.hashes})`);
    }
    return { ...base, bits, counterBits: meta.zero('counterBits'), ...meta.oneString(), ...fixed };
  },
};
