import { BLOCK_BITS, MAX_BLOCKED_BITS } from '@bloomkit/core';
import { checkInteger } from '@bloomkit/core/kit';
import { BitStore } from '../bit-store.js';
import { MAX_STRING_BITS } from '../bytes.js';
import { MAX_SHARDS } from '../meta-fields.js';
import {
  checkStringBits,
  oneFilter,
  refuseOption,
  type StorageFamily,
  sizedOf,
  sizeSingle,
} from './family.js';

/** Default shard size of a blocked filter: 4 MiB of blocks per Redis key. */
export const DEFAULT_SHARD_BYTES: number = 4 * 1024 * 1024;

/**
 * `shards`: a bit filter of the blocked layout cut into shards of whole blocks (a block is self-contained, so a key
 * touches one shard), each shard a string in its own slot with its guard and shape after its blocks (guard.ts,
 * shard-shape.ts; lua/shards.lua serves them one shard a call).
 */
export const SHARDS: StorageFamily = {
  name: 'shards',
  exceptions: true,
  guarded: false,
  timed: false,
  alwaysSized: false,
  tooBig: 'use more shards',
  lua: 'shards',
  plan(plan) {
    refuseOption(plan, 'counterBits');
    const sized = sizeSingle(plan);
    return {
      ...plan.base,
      ...sized,
      ...shardLayout(plan.where, plan.record.name, sized.bits, plan.o.shards),
    };
  },
  paramsOf(where, local, base, shards) {
    return { ...base, ...sizedOf(local), ...shardLayout(where, base.kind, local.bits, shards) };
  },
  decode(meta, base) {
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
  open: (context, counter) => new BitStore(context, counter, true),
  filters: oneFilter,
};

/**
 * How a blocked filter of `bits` is cut into shards: at most `requested` shards (default: shards of 4 MiB − 64 B), each
 * of the same number of blocks but the last, that number chosen so a shard fills a jemalloc size class with room
 * for Redis's string header. jemalloc (Redis's allocator) rounds an allocation up to its next class, 25% apart
 * above 4 KiB: a shard of exactly 4 MiB plus its header would take 5 MiB, one of 4 MiB − 64 B takes 4 MiB.
 */
function shardLayout(
  where: string,
  kind: string,
  bits: number,
  requested: number | undefined,
): { shards: number; shardBlocks: number } {
  const blocks = bits / BLOCK_BITS;
  const needed =
    requested === undefined
      ? DEFAULT_SHARD_BYTES / 64 - 1
      : Math.ceil(blocks / checkInteger(where, 'shards', requested, 1, Math.min(blocks, MAX_SHARDS)));
  const shardBlocks = Math.min(blocks, sizeClass((needed + 1) * 64) / 64 - 1);
  checkStringBits(where, kind, SHARDS, shardBlocks * BLOCK_BITS);
  return { shards: Math.ceil(blocks / shardBlocks), shardBlocks };
}

/** jemalloc's smallest size class ≥ `bytes` for bytes ≥ 4 KiB: four classes per power of two. */
function sizeClass(bytes: number): number {
  if (bytes <= 4096) return 4096;
  const step = 2 ** (Math.floor(Math.log2(bytes - 1)) - 2);
  return Math.ceil(bytes / step) * step;
}
